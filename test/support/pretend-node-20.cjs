'use strict';
// Preloaded (node --require) to make this Node report itself as Node 20, for the runtime check's test where
// the machine has no older Node of its own.
Object.defineProperty(process, 'version', { value: 'v20.20.2' });
