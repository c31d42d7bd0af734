import { checkTransfer } from '../../../src/domain/balance-operations/transfer-validation';

describe('transfer validation', () => {
  const transfer = { gpsi: '19459986891', subBalanceInstId: '19459986891-4', toGpsi: '19459986892', toSubBalanceInstId: '19459986892-4', amount: 1.25 };

  it('takes the amount in milli-units', () => {
    expect(checkTransfer(transfer)).toEqual({ problems: [], value: { subBalanceInstId: '19459986891-4', toGpsi: '19459986892', toSubBalanceInstId: '19459986892-4', amount: 1250 } });
  });

  it('lists every problem at once, a transfer to the same number among them', () => {
    expect(checkTransfer({ ...transfer, toGpsi: transfer.gpsi, toSubBalanceInstId: '', amount: 0 }).problems).toEqual([
      { path: 'toGpsi', reason: 'must be another subscription than gpsi' },
      { path: 'toSubBalanceInstId', reason: 'must be at least 1 characters' },
      { path: 'amount', reason: 'must be greater than zero' },
    ]);
  });
});
