import { portInRecordView } from '../../domain/portin/request';
import { validateQueryPortIn } from '../../domain/portin/validate-commands';
import type { Handler } from '../../contract/handlers';
import { notFoundError } from './apply-change';
import type { PortInDeps } from './deps';
import { describeKeys, findOwnedRequest } from './find-request';

/** QueryPortIn: the whole port-in record (service-spec 2.8), pwdPin and accountNo masked. */
export const createQueryPortIn = (deps: Pick<PortInDeps, 'store'>): Handler =>
  async (raw, context) => {
    const command = validateQueryPortIn(raw);
    const request = await findOwnedRequest(deps.store, context, command);
    if (!request) throw notFoundError(`matches ${describeKeys(command)}`);
    return { reply: { status: 'Success', ...portInRecordView(request) } };
  };
