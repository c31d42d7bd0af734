import { reportLeftovers } from './leftover-handles';
import { stackHolder } from './stack-holder';

/** Stops what globalSetup started (nothing when the endpoints were given), then names anything left open. */
export default async function globalTeardown(): Promise<void> {
  const stack = stackHolder.__STACK__;
  stackHolder.__STACK__ = undefined;
  await stack?.stop();
  await reportLeftovers();
}
