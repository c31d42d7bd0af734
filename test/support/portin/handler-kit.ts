import pino from 'pino';
import { buildCatalog } from '../../../src/domain/catalog/catalog';
import type { PortInDeps } from '../../../src/handlers/portin/deps';
import type { CommandContext } from '../../../src/contract/handlers';
import { SETTINGS, T0 } from './fixtures';
import { MemoryPortInStore } from './memory-store';
import { MemorySubscriptions } from './memory-subscriptions';
import catalogDocument from '../../../config/catalog.json';

/** Port-in handler dependencies over in-memory fakes, and command contexts, for unit tests. */
export const silentLog = pino({ level: 'silent' });

export function portInKit(overrides: Partial<PortInDeps> = {}) {
  const store = new MemoryPortInStore();
  const subscriptions = new MemorySubscriptions();
  store.subscriptionStatus = async (gpsi) => (await subscriptions.status(gpsi))?.status;
  const deps: PortInDeps = {
    store,
    // as the Redis adapter reads them in one step: the subscription's status and the current request
    numbers: { read: async (gpsi) => ({ subscriptionStatus: (await subscriptions.status(gpsi))?.status, portIn: await store.current(gpsi) }) },
    subscriptions,
    catalog: buildCatalog(catalogDocument),
    settings: SETTINGS,
    nonPortableRanges: [{ prefix: '1900', reasonCode: '8B', reasonDesc: 'PremiumRateNumber' }],
    ...overrides,
  };
  return { deps, store, subscriptions };
}

let sequence = 0;

/** A context acting for `wholesaleCustomerId` (default WC-1) that sees that node's records only, unless overridden. */
export function context(overrides: Partial<CommandContext> = {}): CommandContext {
  sequence += 1;
  const wholesaleCustomerId = 'wholesaleCustomerId' in overrides ? overrides.wholesaleCustomerId : 'WC-1';
  const owner = wholesaleCustomerId ?? '';
  return {
    correlationId: `corr-${sequence}`,
    commandId: `cmd-${sequence}`,
    operation: 'Test',
    wholesaleCustomerId,
    canSee: (candidate) => (candidate ?? '') === owner,
    visibleCustomerIds: [owner],
    now: T0,
    log: silentLog,
    fingerprint: `fp-${sequence}`,
    ...overrides,
  };
}

/** A context acting for `acting` that sees the records of every node in `visible` (a partner and its brands). */
export function scopedContext(acting: string, visible: readonly string[], overrides: Partial<CommandContext> = {}): CommandContext {
  return context({ wholesaleCustomerId: acting, canSee: (owner) => owner != null && visible.includes(owner), visibleCustomerIds: visible, ...overrides });
}
