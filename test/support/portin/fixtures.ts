import type { CreatePortInCommand } from '../../../src/domain/portin/commands';
import type { PortStatus } from '../../../src/domain/portin/lifecycle';
import { newPortInRequest, pendingSubscriptionFor, type PortInRequest, type PortInSettings } from '../../../src/domain/portin/request';
import type { NpResponse } from '../../../src/domain/portin/transitions';

/** Shared test data for the port-in unit tests. */
export const SETTINGS: PortInSettings = {
  dueIntervalBusinessDays: 1,
  dueDateMaxDaysAhead: 90,
  abandonAfterSeconds: 30 * 24 * 3600,
  noAnswerAfterDueSeconds: 30 * 24 * 3600,
  activationGraceSeconds: 2 * 24 * 3600,
  cancelAnswerTimeoutSeconds: 3 * 24 * 3600,
  networkServiceProvider: 'NNSP-TEST',
  localServiceProvider: 'NLSP-TEST',
};

/** A Wednesday, so the one-business-day due date is simply the next day. */
export const T0 = new Date('2026-03-04T10:00:00.000Z');

/** A valid CreatePortIn as it arrives from Avro (optional fields null). */
export const rawCreate = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  partnerTransactionId: 'PTX-1',
  subscriberId: 'SUB-1',
  wholesalePlanId: 'WP-BASIC',
  bucketRefId: ['2000001'],
  eSIMDeliveryMethod: 'QR',
  billCycleFrequency: null,
  billCycleStartDay: 5,
  gpsi: '19459986891',
  iccid: null,
  pei: null,
  eid: null,
  products: [{ productId: 'VOICEMAIL', action: 'add', characteristics: [{ key: 'lang', value: 'en' }] }],
  portInfo: {
    authorizationName: 'Ada Lovelace',
    accountNo: '123456789012',
    newNumLocalSP: null,
    pwdPin: '4321',
    termsCondition: 'ACCEPTED',
    contact: { isBusinessType: false, namePrefix: null, firstName: 'Ada', middleName: null, lastName: 'Lovelace', nameSuffix: null, additionalTitle: null },
    location: { portAddress: { addressLine1: '1 Main St', addressLine2: null, city: 'Springfield', state: 'IL', zip: '62701' } },
  },
  ...overrides,
});

export const createCommand = (overrides: Partial<CreatePortInCommand> = {}): CreatePortInCommand => ({
  partnerTransactionId: 'PTX-1',
  subscriberId: 'SUB-1',
  wholesalePlanId: 'WP-BASIC',
  bucketRefId: [],
  billCycleFrequency: 'MONTHLY',
  gpsi: '19459986891',
  products: [],
  portInfo: { accountNo: '123456789012', pwdPin: '4321', contact: { firstName: 'Ada' } },
  ...overrides,
});

/** A request of the given status, as the lifecycle would have left it. */
export function requestIn(status: PortStatus, overrides: Partial<PortInRequest> = {}): PortInRequest {
  const created = newPortInRequest(createCommand(), { requestId: 'req-1', wholesaleCustomerId: 'WC-1', payloadHash: 'hash', correlationId: 'corr-create', now: T0 }, SETTINGS);
  const finished = status === 'COMPLETED' || status === 'CANCELLED';
  return { ...created, portStatus: status, portOrderId: 'PO-1', secrets: finished ? {} : created.secrets, ...overrides };
}

export const subscriptionFor = (command = createCommand()) => pendingSubscriptionFor(command, 'WC-1', T0);

export function npResponse(trigger: NpResponse['trigger'], overrides: Partial<NpResponse> = {}): NpResponse {
  return {
    trigger,
    responseId: `resp-${trigger}`,
    requestId: 'req-1',
    gpsi: '19459986891',
    portOrderId: 'PO-1',
    portOrderVersion: 1,
    sentAt: T0.toISOString(),
    dueDate: trigger === 'PortConfirmed' ? '2026-03-05T10:00:00.000Z' : undefined,
    ...(['PortDelayed', 'ResolutionRequired', 'PortRejected'].includes(trigger) ? { reasonCode: '8C', reasonDescription: 'Password/PIN required or incorrect' } : {}),
    ...(trigger === 'CancelRefused' ? { reasonCode: 'CR', reasonDescription: 'Cancel refused: the port is past its point of no return' } : {}),
    ...overrides,
  };
}
