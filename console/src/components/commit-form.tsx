import { useState } from 'preact/hooks';
import { valueOf } from './ui';

/**
 * The commit form of the Workflows, Templates and Preferences pages: a commit message and the button.
 * `onCommit` commits with the message and says whether it worked (the page shows its own notice or
 * error); the message is cleared only when it did.
 */
export function CommitForm(props: {
  label?: string;
  disabled?: boolean;
  onCommit: (message: string) => Promise<boolean>;
}) {
  const [message, setMessage] = useState('');
  const [busy, setBusy] = useState(false);
  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    try {
      if (await props.onCommit(message)) setMessage('');
    } finally {
      setBusy(false);
    }
  }
  return (
    <form class="row commit" onSubmit={submit}>
      <input
        aria-label="Commit message"
        placeholder="What changed (commit message)"
        value={message}
        onInput={(e) => setMessage(valueOf(e))}
      />
      <button type="submit" class="primary" disabled={busy || props.disabled}>
        {props.label ?? 'Commit'}
      </button>
    </form>
  );
}
