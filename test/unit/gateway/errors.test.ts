import { ERROR_CODES } from '../../../src/contract/errors';
import { ClientClosedError, InvalidCommandError, RequestTimeoutError, ServiceReplyError } from '../../../src/client/errors';
import { fieldPathOf, GatewayError, httpErrorOf, problemsOf } from '../../../src/gateway/errors';

describe('the HTTP answer of a failed request', () => {
  it.each(Object.entries(ERROR_CODES))('an ErrorReply %s keeps the registry status and the same body', (code, { httpStatus }) => {
    const error = new ServiceReplyError('queryBalances', 'c-1', code, 'why', [{ path: 'gpsi', reason: 'bad' }]);
    expect(httpErrorOf(error, 'QueryBalances')).toEqual({
      statusCode: httpStatus,
      body: { status: code, operation: 'QueryBalances', error: { code, message: 'why', problems: [{ path: 'gpsi', reason: 'bad' }] } },
    });
  });

  it('a code a newer service added is a 500 with its body', () => {
    expect(httpErrorOf(new ServiceReplyError('queryBalances', 'c', 'NEW_CODE', 'm', []), null).statusCode).toBe(500);
  });

  it('no reply in time is a 504 naming the correlation id and saying how to retry', () => {
    const { statusCode, body } = httpErrorOf(new RequestTimeoutError('updateBalances', 'corr-9', 3000), 'UpdateBalances');
    expect(statusCode).toBe(504);
    expect(body).toMatchObject({ status: 'GATEWAY_TIMEOUT', operation: 'UpdateBalances', error: { code: 'GATEWAY_TIMEOUT', problems: [] } });
    expect(body.error.message).toContain('X-Correlation-Id corr-9');
    expect(body.error.message).toContain('retry with the same X-Correlation-Id');
  });

  it('a command off its Avro schema is a 400 listing the problems; a closed client and any send failure are 503', () => {
    expect(httpErrorOf(new InvalidCommandError('addBuckets', [{ path: 'bucketRefId', reason: 'x' }]), null)).toMatchObject({
      statusCode: 400,
      body: { error: { problems: [{ path: 'bucketRefId', reason: 'x' }] } },
    });
    expect(httpErrorOf(new ClientClosedError('addBuckets'), null).statusCode).toBe(503);
    expect(httpErrorOf(new Error('KafkaJSConnectionError'), null)).toMatchObject({ statusCode: 503, body: { status: 'UNAVAILABLE' } });
  });

  it("the gateway's own refusals and fastify's: body too large 413, wrong media type 415, schema problems 400 with every problem", () => {
    expect(httpErrorOf(new GatewayError('UNAUTHORIZED', 'no token'), null)).toMatchObject({ statusCode: 401, body: { status: 'UNAUTHORIZED', error: { message: 'no token' } } });
    expect(httpErrorOf({ code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413, message: 'Request body is too large' }, null).statusCode).toBe(413);
    expect(httpErrorOf({ code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: 415, message: 'x' }, null).statusCode).toBe(415);
    const validation = {
      message: 'x',
      validationContext: 'body',
      validation: [
        { instancePath: '', keyword: 'required', params: { missingProperty: 'gpsi' }, message: "must have required property 'gpsi'" },
        { instancePath: '/balances/0/quantity', keyword: 'type', params: {}, message: 'must be number' },
      ],
    };
    expect(httpErrorOf(validation, 'UpdateBalances')).toMatchObject({
      statusCode: 400,
      body: {
        status: 'BAD_REQUEST',
        error: {
          problems: [
            { path: 'gpsi', reason: 'is required' },
            { path: 'balances[0].quantity', reason: 'must be number' },
          ],
        },
      },
    });
  });

  it('writes JSON pointers in the service notation', () => {
    expect(fieldPathOf('/portInfo/contact', 'firstName')).toBe('portInfo.contact.firstName');
    expect(fieldPathOf('/bucketRefId/2')).toBe('bucketRefId[2]');
    expect(problemsOf([{ instancePath: '/a~1b', keyword: 'type', params: {} }])).toEqual([{ path: 'a/b', reason: 'type' }]);
  });
});
