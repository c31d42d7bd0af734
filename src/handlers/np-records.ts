import { isPortOutResponse } from '../domain/port-out/records';
import type { NpResponseProcessor } from './portin/np-response-processor';

/** np.portin.responses.v1 carries the port-in answers and the port-out records: each goes to its own processor. */
export const routeNpRecords =
  (portin: NpResponseProcessor, portout: NpResponseProcessor): NpResponseProcessor =>
  (response, context) =>
    (isPortOutResponse(response.recordName) ? portout : portin)(response, context);
