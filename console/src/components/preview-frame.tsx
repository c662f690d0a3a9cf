/**
 * Rendered content shown as a delivery carries it. HTML goes into an iframe sandboxed with no
 * permissions at all (no scripts, no forms, an opaque origin), so a template's markup, however
 * hostile, runs nothing and reaches nothing of the console.
 */
export function PreviewFrame(props: {
  channel: string;
  content: Record<string, unknown> | null | undefined;
  title?: string;
}) {
  const content = props.content ?? {};
  const html = typeof content.html === 'string' ? content.html : undefined;
  const text = (key: string) => (typeof content[key] === 'string' ? (content[key] as string) : undefined);
  const others = Object.entries(content).filter(([k]) => !['html', 'subject', 'text', 'header'].includes(k));
  return (
    <div class="preview" data-channel={props.channel}>
      {text('subject') !== undefined && (
        <p class="preview-subject">
          <span class="muted">Subject</span> <strong>{text('subject')}</strong>
        </p>
      )}
      {text('header') !== undefined && (
        <p class="preview-subject">
          <span class="muted">Header</span> <strong>{text('header')}</strong>
        </p>
      )}
      {html !== undefined && (
        <iframe
          class="preview-html"
          title={props.title ?? 'Rendered HTML'}
          sandbox=""
          referrerpolicy="no-referrer"
          srcdoc={html}
        />
      )}
      {text('text') !== undefined && <pre class="preview-text">{text('text')}</pre>}
      {others.length > 0 && <pre class="json">{JSON.stringify(Object.fromEntries(others), null, 2)}</pre>}
    </div>
  );
}
