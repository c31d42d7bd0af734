import { countByStatus, deriveOrderStatus } from '../../../src/domain/port-orders/status';

describe('an order status derived from its numbers', () => {
  it.each([
    [['OPEN', 'COMPLETED', 'REFUSED'], 'IN_PROGRESS'],
    [['CREATING', 'COMPLETED'], 'IN_PROGRESS'],
    [['CANCEL_PENDING', 'CANCELLED'], 'IN_PROGRESS'],
    [['RESOLUTION_REQUIRED', 'COMPLETED'], 'ACTION_REQUIRED'],
    [['COMPLETED', 'COMPLETED'], 'COMPLETED'],
    [['COMPLETED', 'REJECTED', 'REFUSED', 'CANCELLED'], 'PARTIALLY_COMPLETED'],
    [['CANCELLED', 'CANCELLED'], 'CANCELLED'],
    [['REJECTED', 'REFUSED', 'CANCELLED'], 'FAILED'],
    [['REFUSED'], 'FAILED'],
  ] as const)('%j → %s', (numbers, expected) => {
    expect(deriveOrderStatus(numbers)).toBe(expected);
  });

  it('counts the numbers in each state', () => {
    expect(countByStatus(['OPEN', 'OPEN', 'REFUSED'])).toEqual({ OPEN: 2, REFUSED: 1 });
  });
});
