import type { NonPortableRange } from '../../domain/portin/eligibility';
import type { Catalog } from '../../domain/catalog/catalog';
import type { PortInSettings } from '../../domain/portin/request';
import type { SubscriptionLifecycle } from '../../domain/subscription';
import type { CommandContext } from '../../contract/handlers';
import type { NumberFacts, PortInStore } from './ports';

/** What the port-in handlers, the NP response processor and the expiry sweeper are built from. */
export interface PortInDeps {
  store: PortInStore;
  /** A number's subscription status and current request in one read (eligibility). */
  numbers: NumberFacts;
  subscriptions: SubscriptionLifecycle;
  catalog: Catalog;
  settings: PortInSettings;
  nonPortableRanges: readonly NonPortableRange[];
}

/** Every request belongs to a wholesale customer; a command naming none acts for the '' owner. */
export const ownerOf = (context: Pick<CommandContext, 'wholesaleCustomerId'>): string => context.wholesaleCustomerId ?? '';
