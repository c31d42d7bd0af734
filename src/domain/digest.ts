import { hash } from 'node:crypto';

/**
 * Hex digests of text: crypto.hash (Node 20.12+) in one call, without the Hash object createHash builds
 * per call — ~0.4 µs instead of ~1.1 µs for a short text, and the worker takes two or three per command.
 */
export const sha256Hex = (text: string): string => hash('sha256', text, 'hex');

export const sha1Hex = (text: string): string => hash('sha1', text, 'hex');
