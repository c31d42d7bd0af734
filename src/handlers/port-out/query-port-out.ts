import { ServiceError } from '../../contract/errors';
import type { Handler } from '../../contract/handlers';
import { checkQueryPortOut } from '../../domain/port-out/validate';
import { orBadRequest } from '../../domain/validation/problems';
import type { PortOutDeps } from './ports';

/** QueryPortOut: the number's latest port-out, also once it completed (the subscription ended, its history stays). */
export const createQueryPortOut =
  (deps: Pick<PortOutDeps, 'store'>): Handler =>
  async (raw, context) => {
    const { gpsi } = orBadRequest(checkQueryPortOut(raw));
    const current = await deps.store.current(gpsi);
    if (!current || !context.canSee(current.wholesaleCustomerId)) throw new ServiceError('NOT_FOUND', `no port-out of ${gpsi}`);
    return {
      reply: {
        status: 'Success',
        gpsi,
        portOutId: current.portOutId,
        portOutStatus: current.status,
        gainingProvider: current.gainingProvider,
        requestedAt: current.requestedAt,
        validationDeadline: current.validationDeadline,
        desiredDueDate: current.desiredDueDate ?? null,
        decidedBy: current.decidedBy ?? null,
        reasonCode: current.reasonCode ?? null,
        reasonDescription: current.reasonDescription ?? null,
        completedAt: current.completedAt ?? null,
        cancelReason: current.cancelReason ?? null,
      },
    };
  };
