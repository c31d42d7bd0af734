import { AuthenticationError, MultipleErrors, NetworkError, ProtocolError, ResponseError } from '@platformatic/kafka';
import { brokerErrorNames, explainKafkaError, leafErrors } from '../../../src/adapters/kafka/kafka-error';

/** Error trees as @platformatic/kafka builds them (constructed here, no broker). */
const CREATE_TOPICS = 19;

describe('reading an @platformatic/kafka error tree', () => {
  it('finds the broker error names under the wrappers, one per refused topic', () => {
    const refused = new ResponseError(CREATE_TOPICS, 7, { '/topics/0': [36, 'Topic a exists.'], '/topics/1': [36, 'Topic b exists.'] }, {});
    const error = new MultipleErrors('Creating topics failed.', [refused]);
    expect(brokerErrorNames(error)).toEqual(['TOPIC_ALREADY_EXISTS', 'TOPIC_ALREADY_EXISTS']);
    expect(brokerErrorNames(new MultipleErrors('Creating topics failed.', [new ResponseError(CREATE_TOPICS, 7, { '/topics/0': [29, null] }, {})]))).toEqual(['TOPIC_AUTHORIZATION_FAILED']);
  });

  it('has no broker error name for a connection failure', () => {
    expect(brokerErrorNames(new MultipleErrors('Listing topics failed.', [new NetworkError('Connection to 127.0.0.1:1 failed.')]))).toEqual([]);
  });

  it('follows causes: a failed authentication below a failed connection', () => {
    const saslRefusal = new ProtocolError('SASL_AUTHENTICATION_FAILED', 'Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512');
    const error = new MultipleErrors('Listing topics failed.', [
      new NetworkError('Connection to 127.0.0.1:9092 failed.', { cause: new AuthenticationError('SASL authentication failed.', { cause: saslRefusal }) }),
    ]);
    expect(leafErrors(error).map((leaf) => leaf.message)).toEqual(['Connection to 127.0.0.1:9092 failed.', 'SASL authentication failed.', saslRefusal.message]);
    const explained = explainKafkaError(error);
    expect(explained.message).toBe(
      'Listing topics failed: Connection to 127.0.0.1:9092 failed; SASL authentication failed; SASL_AUTHENTICATION_FAILED: Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512',
    );
    expect(explained.cause).toBe(error);
  });

  it('leaves an error without reasons below it as it is', () => {
    const plain = new Error('principal must look like User:<name>');
    expect(explainKafkaError(plain)).toBe(plain);
  });
});
