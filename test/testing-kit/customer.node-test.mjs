/* global URL, fetch */
// A customer's test written for node:test (run by customer-node-test.test.ts, so CI runs it):
// plain JavaScript, `herald/testing` imported through the package export, the official Node SDK.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Suprsend, WorkflowTriggerRequest } from '@suprsend/node-sdk';
import { startHerald } from 'herald/testing';

let herald;
let supr;

before(async () => {
  herald = await startHerald({
    load: fileURLToPath(new URL('./notifications', import.meta.url)),
    now: '2026-03-02T07:00:00Z',
  });
  supr = new Suprsend(herald.workspaceKey, herald.workspaceSecret, { base_url: herald.baseUrl });
});
after(() => herald?.close());

async function addUser(id, email) {
  await supr.users.upsert(id, { name: id });
  const user = supr.users.get_edit_instance(id);
  user.add_email(email);
  user.set_timezone('Europe/Paris');
  await supr.users.edit(user);
}

const trigger = async (workflow, recipient, data) => {
  const response = await supr.workflows.trigger(
    new WorkflowTriggerRequest({ workflow, recipients: [recipient], data }),
  );
  assert.equal(response.status_code, 202);
};
const subjectsTo = (email) =>
  herald
    .deliveries()
    .filter((delivery) => delivery.to === email)
    .map((delivery) => delivery.content.subject);

test('the trial reminder waits a day', async () => {
  await addUser('ada', 'ada@example.com');
  await trigger('trial-reminder', 'ada', { plan: 'Pro' });
  await herald.clock.advance('23h');
  assert.deepEqual(subjectsTo('ada@example.com'), []);
  await herald.clock.advance('1h');
  assert.deepEqual(subjectsTo('ada@example.com'), ['Your Pro trial ends tomorrow']);
});

test('the daily summary goes out once a day for three days', async () => {
  await addUser('grace', 'grace@example.com');
  for (const count of [2, 1, 3]) {
    for (let i = 0; i < count; i += 1) await trigger('daily-summary', 'grace', { title: `update ${i}` });
    await herald.clock.advance('1d');
  }
  assert.deepEqual(subjectsTo('grace@example.com'), ['2 updates today', '1 updates today', '3 updates today']);
});

test('comments within the batch window make one email', async () => {
  await addUser('linus', 'linus@example.com');
  for (const author of ['ada', 'grace']) {
    await trigger('comments', 'linus', { post: 'Herald', author, text: 'hi' });
    await herald.clock.advance('2m');
  }
  assert.deepEqual(subjectsTo('linus@example.com'), []);
  await herald.clock.advance('3m');
  assert.deepEqual(subjectsTo('linus@example.com'), ['2 new comments on Herald']);
});

test('no newsletter after an opt-out', async () => {
  await addUser('alan', 'alan@example.com');
  const optOut = await fetch(`${herald.baseUrl}v1/user/alan/preference/category/newsletter/`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${herald.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ preference: 'opt_out' }),
  });
  assert.ok(optOut.ok);
  await trigger('newsletter', 'alan', { headline: 'Herald 1.0' });
  await herald.clock.advance(0);
  assert.deepEqual(subjectsTo('alan@example.com'), []);
});
