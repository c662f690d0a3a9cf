import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { Dialog, ErrorNotice } from './ui';

/**
 * A dialog holding one form (the Vendors page's create/edit and test send): its fields, the submit
 * button (disabled while the request runs), Cancel, and the error where it occurred. `onSubmit` throws
 * to show its error; `after` is shown below the buttons (a result).
 */
export function FormDialog(props: {
  title: string;
  submitLabel: string;
  busyLabel?: string;
  onClose: () => void;
  onSubmit: () => Promise<void>;
  children: ComponentChildren;
  after?: ComponentChildren;
}) {
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await props.onSubmit();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }
  return (
    <Dialog title={props.title} onClose={props.onClose}>
      <form class="stack" onSubmit={submit}>
        {props.children}
        {error !== undefined && <ErrorNotice error={error} />}
        <div class="row">
          <button type="submit" class="primary" disabled={busy}>
            {busy ? (props.busyLabel ?? props.submitLabel) : props.submitLabel}
          </button>
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
        </div>
        {props.after}
      </form>
    </Dialog>
  );
}
