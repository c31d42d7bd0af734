import { PORT_STATUSES, ruleFor, type PortTrigger } from '../domain/portin/lifecycle';

const listed = (items: readonly string[]): string => (items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`);

/**
 * The status changes a port-in command makes, read from the lifecycle table the handlers apply
 * (`OPEN, DELAYED or CONFIRMED → CANCEL_PENDING; …`), so the OpenAPI document says what the service does.
 */
export function transitionsText(trigger: PortTrigger): string {
  const fromByTarget = new Map<string, string[]>();
  for (const status of PORT_STATUSES) {
    const rule = ruleFor(status, trigger);
    if (rule.action === 'move' || rule.action === 'replace') fromByTarget.set(rule.to, [...(fromByTarget.get(rule.to) ?? []), status]);
  }
  return [...fromByTarget].map(([to, from]) => `${listed(from)} → ${to}`).join('; ');
}
