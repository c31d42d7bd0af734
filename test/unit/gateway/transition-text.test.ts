import { transitionsText } from '../../../src/gateway/transition-text';
import { ROUTES } from '../../../src/gateway/routes';

describe("the port-in changes' documented status changes", () => {
  it("are the lifecycle table's (docs/portin.md): cancel from five statuses, update from two, a due-date change from five", () => {
    expect(transitionsText('CancelPortIn')).toBe('OPEN, DELAYED or CONFIRMED → CANCEL_PENDING; RESOLUTION_REQUIRED or REJECTED → CANCELLED');
    expect(transitionsText('UpdatePortIn')).toBe('RESOLUTION_REQUIRED or REJECTED → OPEN');
    expect(transitionsText('UpdateDueDate')).toBe('OPEN, DELAYED, CONFIRMED, RESOLUTION_REQUIRED or REJECTED → OPEN');
  });

  it('are in the descriptions of cancelPortIn and updatePortIn', () => {
    const described = (operation: string) => ROUTES.find((route) => route.operation === operation)!.description;
    expect(described('cancelPortIn')).toContain(transitionsText('CancelPortIn'));
    expect(described('updatePortIn')).toContain(transitionsText('UpdateDueDate'));
  });
});
