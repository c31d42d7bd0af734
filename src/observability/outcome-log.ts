import type { Logger } from 'pino';
import type { RecordPosition } from '../contract/transport';
import type { RecordOutcome } from '../pipeline/batch-worker';
import { unredactedLogger } from './logger';

/**
 * The worker's line per record handled ("command handled": who did what, and how it ended). Refusals past
 * the sender's budget cost a counter and nothing else: no line (a flood would flood the log).
 */
export function commandOutcomeLog(log: Logger): (outcome: RecordOutcome, position: RecordPosition, durationMs: number) => void {
  const commandLines = unredactedLogger(log);
  return (outcome, position, durationMs) => {
    if (outcome.rejection?.action === 'dropped' || outcome.rejection?.action === 'shed') return;
    commandLines.info(
      { correlationId: outcome.correlationId, operation: outcome.operation, customer: outcome.customer, ...position, outcome: outcome.outcome, durationMs: Math.round(durationMs * 10) / 10 },
      'command handled',
    );
  };
}
