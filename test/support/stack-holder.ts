import type { Stack } from '../../dev/stack';

/** jest runs globalSetup and globalTeardown in one process: the Stack passes between them on globalThis. */
export const stackHolder = globalThis as typeof globalThis & { __STACK__?: Stack };
