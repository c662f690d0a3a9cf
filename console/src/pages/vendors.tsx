import { useState } from 'preact/hooks';
import { api } from '../api';
import { useAsync } from '../hooks';
import { Badge, Empty, ErrorNotice, Field, Json, Loading, Page, valueOf } from '../components/ui';
import { FormDialog } from '../components/form-dialog';
import type { Vendor, VendorTestResult } from '../types';

/** Which providers send on which channel (src/channels/providers), with a starting config for each. */
const PROVIDERS: Record<string, { channels: string[]; config: Record<string, unknown> }> = {
  smtp: {
    channels: ['email'],
    config: { host: 'smtp.example.com', port: 587, from_email: 'no-reply@example.com', username: '', password: '' },
  },
  twilio: { channels: ['sms', 'whatsapp'], config: { account_sid: '', auth_token: '', from: '' } },
  fcm: { channels: ['androidpush'], config: { project_id: '', client_email: '', private_key: '' } },
  apns: { channels: ['iospush'], config: { team_id: '', key_id: '', private_key: '', topic: '' } },
  vapid: { channels: ['webpush'], config: { public_key: '', private_key: '', subject: 'mailto:ops@example.com' } },
  incoming_webhook: { channels: ['slack', 'ms_teams'], config: {} },
  webhook: {
    channels: ['email', 'sms', 'whatsapp', 'inbox', 'webpush', 'androidpush', 'iospush', 'slack', 'ms_teams'],
    config: { url: 'https://example.com/herald', secret: '' },
  },
};
const CHANNELS = ['email', 'sms', 'whatsapp', 'androidpush', 'iospush', 'webpush', 'slack', 'ms_teams', 'inbox'];

/** The order Herald tries a channel's vendors in: the default first, then by priority, then oldest. */
const order = (a: Vendor, b: Vendor) =>
  Number(b.is_default) - Number(a.is_default) ||
  (a.priority ?? 0) - (b.priority ?? 0) ||
  a.created_at.localeCompare(b.created_at);

export function Vendors(props: { ws: string }) {
  const list = useAsync(() => api.vendors.list(props.ws), [props.ws]);
  const [editing, setEditing] = useState<Vendor | 'new' | undefined>();
  const [testing, setTesting] = useState<Vendor | undefined>();
  const [error, setError] = useState<unknown>();
  const vendors = list.data?.results ?? [];
  const channels = CHANNELS.filter((c) => vendors.some((v) => v.channel === c));

  async function makeDefault(v: Vendor) {
    setError(undefined);
    try {
      await api.vendors.update(props.ws, v.id, { is_default: true });
      list.reload();
    } catch (e) {
      setError(e);
    }
  }

  return (
    <Page
      title="Vendors"
      subtitle="The providers that deliver each channel, in the order Herald tries them."
      actions={
        <button type="button" class="primary" onClick={() => setEditing('new')}>
          New vendor
        </button>
      }
    >
      {error !== undefined && <ErrorNotice error={error} />}
      {list.error ? (
        <ErrorNotice error={list.error} />
      ) : !list.data ? (
        <Loading />
      ) : vendors.length === 0 ? (
        <Empty title="No vendors yet: nothing can be delivered.">
          Add one with <strong>New vendor</strong> — an SMTP server for email, Twilio for SMS — then use{' '}
          <strong>Test send</strong> to check its credentials.
        </Empty>
      ) : (
        channels.map((channel) => (
          <section key={channel} class="group">
            <h2>{channel}</h2>
            <table class="table">
              <thead>
                <tr>
                  <th scope="col">Order</th>
                  <th scope="col">Vendor</th>
                  <th scope="col">Provider</th>
                  <th scope="col">State</th>
                  <th scope="col">
                    <span class="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {vendors
                  .filter((v) => v.channel === channel)
                  .sort(order)
                  .map((v, i) => (
                    <tr key={v.id}>
                      <td>{i + 1}</td>
                      <td>
                        <strong>{v.nickname ?? v.provider}</strong>
                        <div class="muted small mono">{v.id}</div>
                      </td>
                      <td>{v.provider}</td>
                      <td>
                        {v.is_default && <Badge tone="info">default</Badge>}
                        {v.is_active ? <Badge tone="ok">active</Badge> : <Badge tone="warn">inactive</Badge>}
                      </td>
                      <td class="actions">
                        <button type="button" onClick={() => setEditing(v)}>
                          Edit
                        </button>
                        <button type="button" onClick={() => setTesting(v)}>
                          Test send
                        </button>
                        {!v.is_default && (
                          <button type="button" onClick={() => makeDefault(v)}>
                            Make default
                          </button>
                        )}
                      </td>
                    </tr>
                  ))}
              </tbody>
            </table>
          </section>
        ))
      )}
      {editing && (
        <VendorForm
          ws={props.ws}
          vendor={editing === 'new' ? undefined : editing}
          onClose={() => setEditing(undefined)}
          onSaved={() => {
            setEditing(undefined);
            list.reload();
          }}
        />
      )}
      {testing && <TestSend ws={props.ws} vendor={testing} onClose={() => setTesting(undefined)} />}
    </Page>
  );
}

function VendorForm(props: { ws: string; vendor?: Vendor; onClose: () => void; onSaved: () => void }) {
  const v = props.vendor;
  const [channel, setChannel] = useState(v?.channel ?? 'email');
  const [provider, setProvider] = useState(v?.provider ?? 'smtp');
  const [nickname, setNickname] = useState(v?.nickname ?? '');
  const [isActive, setIsActive] = useState(v?.is_active ?? true);
  const [config, setConfig] = useState(JSON.stringify(v?.config ?? PROVIDERS.smtp!.config, null, 2));
  const providers = Object.entries(PROVIDERS).filter(([, p]) => p.channels.includes(channel));

  async function submit() {
    let parsed: unknown;
    try {
      parsed = JSON.parse(config);
    } catch (e) {
      throw new Error(`config is not valid JSON: ${(e as Error).message}`);
    }
    {
      // Secrets come back masked; sent back masked, Herald keeps the stored value.
      if (v)
        await api.vendors.update(props.ws, v.id, { nickname: nickname || null, is_active: isActive, config: parsed });
      else
        await api.vendors.create(props.ws, {
          channel,
          provider,
          nickname: nickname || null,
          is_active: isActive,
          config: parsed,
        });
      props.onSaved();
    }
  }
  return (
    <FormDialog
      title={v ? `Edit ${v.nickname ?? v.provider}` : 'New vendor'}
      submitLabel={v ? 'Save vendor' : 'Create vendor'}
      onClose={props.onClose}
      onSubmit={submit}
    >
      <div class="row">
        <Field label="Channel">
          <select
            name="channel"
            disabled={Boolean(v)}
            value={channel}
            onChange={(e) => {
              const next = valueOf(e);
              setChannel(next);
              const first = Object.entries(PROVIDERS).find(([, p]) => p.channels.includes(next));
              if (first) {
                setProvider(first[0]);
                setConfig(JSON.stringify(first[1].config, null, 2));
              }
            }}
          >
            {CHANNELS.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Provider">
          <select
            name="provider"
            disabled={Boolean(v)}
            value={provider}
            onChange={(e) => {
              setProvider(valueOf(e));
              setConfig(JSON.stringify(PROVIDERS[valueOf(e)]?.config ?? {}, null, 2));
            }}
          >
            {providers.map(([name]) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <Field label="Nickname">
        <input name="nickname" value={nickname} onInput={(e) => setNickname(valueOf(e))} />
      </Field>
      <Field label="Config (JSON)" hint="Secrets show as ******** and are never sent back; leave them so to keep them.">
        <textarea
          name="config"
          class="code"
          rows={9}
          spellcheck={false}
          value={config}
          onInput={(e) => setConfig(valueOf(e))}
        />
      </Field>
      <label class="check">
        <input type="checkbox" checked={isActive} onChange={(e) => setIsActive(e.currentTarget.checked)} /> Active
      </label>
    </FormDialog>
  );
}

function TestSend(props: { ws: string; vendor: Vendor; onClose: () => void }) {
  const [to, setTo] = useState('');
  const [result, setResult] = useState<VendorTestResult | undefined>();
  async function submit() {
    setResult(undefined);
    setResult(await api.vendors.test(props.ws, props.vendor.id, to ? { to } : {}));
  }
  return (
    <FormDialog
      title={`Test ${props.vendor.nickname ?? props.vendor.provider}`}
      submitLabel="Run test"
      busyLabel="Testing…"
      onClose={props.onClose}
      onSubmit={submit}
      after={
        result && (
          <div class={`notice ${result.ok ? 'ok' : 'error'}`} role="status">
            <strong>{result.ok ? 'It works.' : 'It failed.'}</strong> (
            {result.mode === 'check' ? 'connection check' : 'test message'})
            <Json value={result} />
          </div>
        )
      }
    >
      <Field
        label="Send a test message to (optional)"
        hint="Empty: only check the connection and credentials; nothing is sent."
      >
        <input
          name="to"
          value={to}
          placeholder={props.vendor.channel === 'email' ? 'you@example.com' : ''}
          onInput={(e) => setTo(valueOf(e))}
        />
      </Field>
    </FormDialog>
  );
}
