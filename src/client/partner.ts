import { existsSync } from 'node:fs';
import type { ClientConfig } from './config';
import type { CommandTopicRole } from '../contract/topics';
import { partnerNamespace, partnerTopics } from '../contract/partner-topics';
import { loadHierarchyFile } from '../security/hierarchy-file';

/**
 * Which topics a requester writes and reads: those of the partner it acts for. Its commands go to its own
 * command topics, where no other partner's open transaction can hold them back (or to the shared ones
 * with WHOLESALE_SHARED_COMMAND_TOPICS). The service answers a partner on its
 * own reply topics and copies the events of its subscriptions to its own event topics (docs/security.md),
 * and the partner's Kafka rights cover only its namespace — its consumer groups included, so they are
 * named inside it too. Without a known partner (AUTH_MODE=none for a node nobody knows): the legacy shared
 * reply topics and the operator's event topics.
 */
export interface RequesterTopics {
  partnerId: string | undefined;
  /** Where commands go: the partner's own command topics, or the shared ones (no partner, or asked for). */
  commands: Record<CommandTopicRole, string>;
  replies: { portin: string; balance: string };
  events: { portin: string; balance: string };
  /** Prefix of the requester's consumer groups: the partner namespace, or nothing. */
  groupPrefix: string;
}

/** The partner root of a node, when the customer hierarchy file is there and knows the node. */
export function partnerOfNode(customersFile: string, nodeId: string | undefined): string | undefined {
  if (nodeId === undefined || !existsSync(customersFile)) return undefined;
  return loadHierarchyFile(customersFile).node(nodeId)?.partnerId;
}

/** The partner given (option, WHOLESALE_PARTNER_ID), else the partner root of the customer acted for. */
export const partnerOfRequester = (config: ClientConfig, explicit?: string, customerId?: string): string | undefined =>
  explicit ?? config.partnerId ?? partnerOfNode(config.customersFile, customerId ?? config.wholesaleCustomerId);

export function requesterTopics(config: ClientConfig, partnerId: string | undefined): RequesterTopics {
  const shared = { portinCommands: config.topics.portinCommands, balanceCommands: config.topics.balanceCommands };
  if (partnerId === undefined) {
    return {
      partnerId,
      commands: shared,
      replies: { portin: config.topics.portinReplies, balance: config.topics.balanceReplies },
      events: { portin: config.topics.portinEvents, balance: config.topics.balanceEvents },
      groupPrefix: '',
    };
  }
  const own = partnerTopics(config.partnerTopicPrefix, partnerId);
  return {
    partnerId,
    commands: config.sharedCommandTopics ? shared : { portinCommands: own.portinCommands, balanceCommands: own.balanceCommands },
    replies: { portin: own.portinReplies, balance: own.balanceReplies },
    events: { portin: own.portinEvents, balance: own.balanceEvents },
    groupPrefix: partnerNamespace(config.partnerTopicPrefix, partnerId),
  };
}
