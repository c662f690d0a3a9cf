import type { ComponentChildren, TargetedEvent } from 'preact';
import { useEffect } from 'preact/hooks';
import { ApiError } from '../api';
import { href, navigate } from '../router';

/** A page: one h1 naming it, optional actions beside it, and the document title kept in step. */
export function Page(props: {
  title: string;
  subtitle?: ComponentChildren;
  actions?: ComponentChildren;
  children: ComponentChildren;
}) {
  useEffect(() => {
    document.title = `${props.title} · Herald`;
  }, [props.title]);
  return (
    <section class="page">
      <header class="page-head">
        <div>
          <h1>{props.title}</h1>
          {props.subtitle && <p class="muted">{props.subtitle}</p>}
        </div>
        {props.actions && <div class="actions">{props.actions}</div>}
      </header>
      {props.children}
    </section>
  );
}

/** An in-app link: a real href (open in a new tab works), handled without a reload. */
export function Link(props: {
  to: string;
  class?: string;
  children: ComponentChildren;
  'aria-current'?: 'page' | undefined;
}) {
  const onClick = (event: MouseEvent) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(props.to);
  };
  return (
    <a href={href(props.to)} class={props.class} onClick={onClick} aria-current={props['aria-current']}>
      {props.children}
    </a>
  );
}

export function Empty(props: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty" role="status">
      <strong>{props.title}</strong>
      {props.children && <div>{props.children}</div>}
    </div>
  );
}

/** An error answer; a route this server does not have says so plainly instead. */
export function ErrorNotice(props: { error: unknown; what?: string }) {
  const { error } = props;
  if (error instanceof ApiError && error.unavailable)
    return (
      <div class="notice unavailable" role="status">
        <strong>Not available on this server.</strong> {props.what ?? 'This page'} needs a management route this Herald
        does not have yet ({error.message.replace('no route for ', '')}). Upgrade Herald to use it.
      </div>
    );
  const message = error instanceof Error ? error.message : String(error);
  const details = error instanceof ApiError ? fieldErrors(error.body) : [];
  return (
    <div class="notice error" role="alert">
      <strong>{error instanceof ApiError ? `Error ${error.status}` : 'Error'}:</strong> {message}
      {details.length > 0 && (
        <ul>
          {details.map((d) => (
            <li key={d}>{d}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

function fieldErrors(body: unknown): string[] {
  if (!body || typeof body !== 'object') return [];
  const detail = (body as { detail?: unknown }).detail;
  const errors =
    (body as { errors?: unknown }).errors ??
    (detail && typeof detail === 'object' ? (detail as { errors?: unknown }).errors : undefined);
  if (Array.isArray(errors)) return errors.map((e) => (typeof e === 'string' ? e : JSON.stringify(e)));
  if (errors && typeof errors === 'object')
    return Object.entries(errors).map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : String(v)}`);
  return [];
}

export function Loading() {
  return (
    <p class="muted loading" role="status">
      Loading…
    </p>
  );
}

export function Badge(props: { tone?: 'ok' | 'warn' | 'bad' | 'info' | 'plain'; children: ComponentChildren }) {
  return <span class={`badge ${props.tone ?? 'plain'}`}>{props.children}</span>;
}

const TONES: Record<string, 'ok' | 'warn' | 'bad' | 'info'> = {
  active: 'ok',
  live: 'ok',
  completed: 'ok',
  delivered: 'ok',
  sent: 'ok',
  seen: 'ok',
  read: 'ok',
  clicked: 'ok',
  done: 'ok',
  delivered_messages: 'ok',
  enabled: 'ok',
  draft: 'info',
  running: 'info',
  accepted: 'info',
  waiting: 'info',
  waiting_until: 'info',
  batched: 'info',
  digested: 'info',
  absorbed: 'info',
  branch_taken: 'info',
  queued: 'info',
  triggered: 'info',
  inactive: 'warn',
  disabled: 'warn',
  skipped: 'warn',
  cancelled: 'warn',
  rate_limited: 'warn',
  refused: 'warn',
  failed: 'bad',
  failure: 'bad',
  error: 'bad',
};
export const StatusBadge = (props: { status: string }) => (
  <Badge tone={TONES[props.status] ?? 'plain'}>{props.status.replace(/_/g, ' ')}</Badge>
);

export function Time(props: { at: string | null | undefined }) {
  if (!props.at) return <span class="muted">—</span>;
  const date = new Date(props.at);
  return (
    <time dateTime={props.at} title={date.toISOString()}>
      {date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })}
    </time>
  );
}

/** Previous/next over an offset list. */
export function OffsetPager(props: { offset: number; limit: number; count: number; onPage: (offset: number) => void }) {
  const { offset, limit, count } = props;
  const last = Math.min(offset + limit, count);
  return (
    <nav class="pager" aria-label="Pages">
      <span class="muted">{count === 0 ? 'None' : `${offset + 1}–${last} of ${count}`}</span>
      <button type="button" disabled={offset === 0} onClick={() => props.onPage(Math.max(0, offset - limit))}>
        Previous
      </button>
      <button type="button" disabled={last >= count} onClick={() => props.onPage(offset + limit)}>
        Next
      </button>
    </nav>
  );
}

/** Previous/next over a cursor list (meta.before / meta.after). */
export function CursorPager(props: {
  meta: { count: number; has_prev: boolean; before: string | null; has_next: boolean; after: string | null };
  onPage: (cursor: { before?: string; after?: string }) => void;
}) {
  const { meta } = props;
  return (
    <nav class="pager" aria-label="Pages">
      <span class="muted">{meta.count} in all</span>
      <button
        type="button"
        disabled={!meta.has_prev}
        onClick={() => props.onPage({ before: meta.before ?? undefined })}
      >
        Previous
      </button>
      <button type="button" disabled={!meta.has_next} onClick={() => props.onPage({ after: meta.after ?? undefined })}>
        Next
      </button>
    </nav>
  );
}

export function Field(props: { label: string; hint?: ComponentChildren; children: ComponentChildren }) {
  return (
    <label class="field">
      <span class="label">{props.label}</span>
      {props.children}
      {props.hint && <span class="hint">{props.hint}</span>}
    </label>
  );
}

export function Json(props: { value: unknown }) {
  return <pre class="json">{JSON.stringify(props.value, null, 2)}</pre>;
}

export function Dialog(props: { title: string; onClose: () => void; children: ComponentChildren }) {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => event.key === 'Escape' && props.onClose();
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [props.onClose]);
  return (
    <div class="overlay" onClick={(e) => e.target === e.currentTarget && props.onClose()}>
      <div class="dialog" role="dialog" aria-modal="true" aria-label={props.title}>
        <header>
          <h2>{props.title}</h2>
          <button type="button" class="ghost" aria-label="Close" onClick={props.onClose}>
            ✕
          </button>
        </header>
        {props.children}
      </div>
    </div>
  );
}

export type InputEvent = TargetedEvent<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement, Event>;
export const valueOf = (event: InputEvent) => event.currentTarget.value;

/** A filter that is one of a few values, or "Any" (the empty string): the list pages' status and channel filters. */
export function ChoiceFilter(props: {
  label: string;
  value: string;
  choices: readonly string[];
  onChange: (value: string) => void;
}) {
  return (
    <Field label={props.label}>
      <select value={props.value} onChange={(e) => props.onChange(valueOf(e))}>
        <option value="">Any</option>
        {props.choices.map((choice) => (
          <option key={choice}>{choice}</option>
        ))}
      </select>
    </Field>
  );
}
