// @platformatic/kafka is an ES module only. Jest's own module loader (CommonJS here, through ts-jest) cannot
// load it, while Node 24's require can (no top-level await in it): every import of the package in a test
// run is mapped here and handed Node's own require's answer, as the compiled service gets at run time.
// Node's module API is taken from the process: Jest's `require('node:module')` would map the package back here.
const { createRequire } = process.getBuiltinModule('node:module');

module.exports = createRequire(__filename)('@platformatic/kafka');
