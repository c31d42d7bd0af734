import { chromium, type Browser } from 'playwright-core';
import { gpsiEndingIn } from '../support/client';
import { testAuth, type TestAuth } from '../support/auth';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { useService } from '../support/service-fixture';

/**
 * The gateway's interactive API reference (/docs) in a real headless browser — Debian's Chromium driven by
 * playwright-core — against the real stack: a partner authorizes with its token and tries an operation
 * from the page, and the service's reply shows on it.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

describe('the API reference page in a headless browser', () => {
  let auth: TestAuth;
  let gateway: TestGateway;
  let browser: Browser;

  beforeAll(async () => {
    auth = await testAuth();
  });

  const fx = useService({ env: () => auth.env });

  beforeAll(async () => {
    gateway = fx.track(await startTestGateway(fx.config));
    browser = fx.track(await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] }));
  });

  afterAll(async () => {
    auth?.cleanup();
  });

  it('loads, lists every operation, and shows the real reply of an eligibility check tried from the page', async () => {
    const page = await browser.newPage();
    const token = await auth.signer.sign('alpha');
    const gpsi = gpsiEndingIn('42');
    await page.goto(`${gateway.url}/docs`);
    await page.locator('.opblock').first().waitFor();
    // every operation the served document holds, one block each
    const document = (await (await fetch(`${gateway.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const operations = Object.values(document.paths).flatMap((item) => Object.keys(item).filter((key) => ['get', 'post', 'put', 'patch', 'delete'].includes(key)));
    expect(operations.length).toBeGreaterThanOrEqual(20);
    expect(await page.locator('.opblock').count()).toBe(operations.length);

    await page.locator('button.authorize').first().click();
    await page.locator('.modal-ux input[type="text"], .modal-ux input[type="password"]').first().fill(token);
    await page.locator('.modal-ux .auth-btn-wrapper button.authorize').click();
    await page.locator('.modal-ux button.btn-done').click();

    const operation = page.locator('#operations-Port-in-checkPortInEligibility');
    await operation.locator('.opblock-summary').click();
    await operation.locator('button.try-out__btn').click();
    await operation.locator('textarea.body-param__text').fill(JSON.stringify({ gpsi }));
    await operation.locator('button.execute').click();
    const response = operation.locator('.live-responses-table .response');
    await response.first().waitFor({ timeout: 30_000 });
    expect((await response.locator('.response-col_status').first().innerText()).trim()).toBe('200');
    const body = await response.locator('.response-col_description pre, .response-col_description .microlight').first().innerText();
    expect(JSON.parse(body)).toMatchObject({ status: 'Success', eligibilityStatus: 'Eligible' });
  });
});
