import type { PortOutStatus } from './lifecycle';

/**
 * One port-out of a number, as stored (JSON, one per number; the finished ones kept in its history).
 * Stored format 1 (`v`); a reader meeting a newer format stops instead of misreading it.
 */
export const PORTOUT_FORMAT = 1;

export interface PortOut {
  portOutId: string;
  gpsi: string;
  status: PortOutStatus;
  gainingProvider: string;
  /** ISO 8601: when the NP side's request was read. */
  requestedAt: string;
  /** ISO 8601: with no answer by then, the deadline decides. */
  validationDeadline: string;
  desiredDueDate?: string;
  /** The owner of the number's subscription when the port-out was asked: the partner who answers it. */
  wholesaleCustomerId: string;
  subscriberId?: string;
  /** SYSTEM: the service refused it at once (a port-in of the number still in flight). */
  decidedBy?: 'PARTNER' | 'DEADLINE' | 'SYSTEM';
  reasonCode?: string;
  reasonDescription?: string;
  completedAt?: string;
  /** ISO 8601: when the NP side's PortOutCancelled was read (status CANCELLED). */
  cancelledAt?: string;
  /** The NP side's reason for withdrawing the port-out, as it gave it. */
  cancelReason?: string;
  /** X-Correlation-Id of the partner's answer, once it answered. */
  correlationId?: string;
}

export const encodePortOut = (portOut: PortOut): string => JSON.stringify({ v: PORTOUT_FORMAT, ...portOut });

export function decodePortOut(text: string): PortOut {
  const { v, ...portOut } = JSON.parse(text) as PortOut & { v?: number };
  const format = v ?? PORTOUT_FORMAT;
  if (format > PORTOUT_FORMAT) throw new Error(`stored port-out of format ${format}: newer than this worker reads (up to ${PORTOUT_FORMAT})`);
  return portOut;
}
