import { Module } from 'node:module';

/**
 * The one door to @platformatic/kafka for this folder. The client is an ES module and this project is
 * CommonJS: Node (≥ 22.12) loads an ES module through require() itself, but jest's module registry — its
 * `require` and its `createRequire` — cannot (it parses the ES module as CommonJS). A Node module of this
 * file's own, with this file's lookup paths, requires it through Node's loader, for the service and the
 * tests alike. Types come from the package as usual (`import type`).
 */
type Platformatic = typeof import('@platformatic/kafka');

const loader = new Module(__filename);
loader.filename = __filename;
loader.paths = module.paths;
const platformatic = loader.require('@platformatic/kafka') as Platformatic;

export const { Admin, Consumer, Producer, ProduceAcks, murmur2, compressionsAlgorithmsByBitmask } = platformatic;
export type Consumer<K, V, HK, HV> = InstanceType<typeof platformatic.Consumer<K, V, HK, HV>>;
export type Producer<K, V, HK, HV> = InstanceType<typeof platformatic.Producer<K, V, HK, HV>>;
export type Admin = InstanceType<typeof platformatic.Admin>;
