import type { CommandMeta } from '../../handlers/balance/ports';

/** What every balance command's script reads of its command and the store's settings (its ARGV[1]). */
export function commandContext(meta: CommandMeta, settings: { outcomeTtlSeconds: number; ledgerRetention: number }, zone?: string) {
  return {
    gpsi: meta.gpsi,
    visible: meta.visibleCustomerIds ?? [meta.wholesaleCustomerId],
    commandId: meta.commandId,
    correlationId: meta.correlationId,
    operation: meta.operation,
    at: meta.at,
    atMs: Date.parse(meta.at),
    ttl: settings.outcomeTtlSeconds,
    retention: settings.ledgerRetention,
    fp: meta.fingerprint,
    refuseNew: meta.refuseNew,
    zone,
  };
}
