// A partner's first program with the installed client (`npm install wholesale-client`): connect with the
// settings of the environment (KAFKA_BROKERS, SCHEMA_REGISTRY_URL, TOPIC_*, PARTNER_ID…), check that a number
// may be ported in, port it in, wait for the port to complete on the partner's event topic, then read the
// subscription's balances. Each step prints one JSON line. Run: `node client-quickstart.js <11-digit number>`.
const { loadClientConfig, WholesaleClient, ServiceReplyError, RequestTimeoutError } = require('wholesale-client');

async function main(gpsi) {
  const client = await WholesaleClient.connect({
    config: loadClientConfig(),
    wholesaleCustomerId: process.env.WHOLESALE_CUSTOMER_ID ?? 'WC-EXAMPLE',
    // tokenProvider: async () => myIdentityProvider.token(),   // when the service checks tokens
  });
  // The partner's own events (all events without a partner): subscribed before the commands, so none is missed.
  let portCompleted;
  const completed = new Promise((resolve) => (portCompleted = resolve));
  const events = client.subscribeEvents({
    onEvent: (event) => {
      if (event.known && event.recordName === 'wholesale.portin.v1.PortInActivationEvent' && event.value.gpsi === gpsi && event.value.portStatus === 'COMPLETED') portCompleted(event);
    },
  });
  await events.ready;
  try {
    const eligibility = await client.checkPortInEligibility({ gpsi });
    console.log(JSON.stringify({ step: 'eligibility', status: eligibility.status, eligibilityStatus: eligibility.eligibilityStatus }));
    const created = await client.createPortIn({
      partnerTransactionId: `PTX-${Date.now()}`,
      subscriberId: 'SUB-EXAMPLE',
      wholesalePlanId: 'WP-BASIC',
      bucketRefId: ['2000001'],
      gpsi,
      portInfo: {
        authorizationName: 'Ada Lovelace',
        accountNo: '123456789012',
        pwdPin: '4321',
        termsCondition: 'ACCEPTED',
        contact: { isBusinessType: false, firstName: 'Ada', lastName: 'Lovelace' },
        location: { portAddress: { addressLine1: '1 Main St', city: 'Springfield', state: 'IL', zip: '62701' } },
      },
    });
    console.log(JSON.stringify({ step: 'createPortIn', status: created.status, portStatus: created.portStatus }));
    const event = await completed;
    console.log(JSON.stringify({ step: 'event', portStatus: event.value.portStatus, ceId: event.cloudEvent.id }));
    const balances = await client.queryBalances({ gpsi }, { timeoutMs: 10_000 });
    console.log(JSON.stringify({ step: 'queryBalances', status: balances.status, balances: balances.balances.length }));
  } catch (error) {
    if (error instanceof ServiceReplyError) console.log(JSON.stringify({ step: 'error', code: error.code, message: error.serviceMessage, problems: error.problems }));
    else if (error instanceof RequestTimeoutError) console.log(JSON.stringify({ step: 'timeout', timeoutMs: error.timeoutMs }));
    else throw error;
    process.exitCode = 1;
  } finally {
    await client.close();
  }
}

main(process.argv[2]).catch((error) => {
  console.error(error);
  process.exit(1);
});
