import { portInRecordView } from '../../domain/portin/request';
import { checkQueryPortIn } from '../../domain/portin/validate-commands';
import { orBadRequest } from '../../domain/validation/problems';
import type { Handler } from '../../contract/handlers';
import { notFoundError } from './apply-change';
import type { PortInDeps } from './deps';
import { describeKeys, findOwnedRequest } from './find-request';

/** QueryPortIn: the whole port-in record (service-spec 2.8), pwdPin and accountNo masked. */
export const createQueryPortIn =
  (deps: Pick<PortInDeps, 'store'>): Handler =>
  async (raw, context) => {
    const command = orBadRequest(checkQueryPortIn(raw));
    const request = await findOwnedRequest(deps.store, context, command);
    if (!request) throw notFoundError(`matches ${describeKeys(command)}`);
    return { reply: { status: 'Success', ...portInRecordView(request) } };
  };
