/**
 * A workflow tree drawn as a flow: one card per node, top to bottom; a branch node fans out into
 * columns, one per branch, that join again below it. Validation errors that name a node's place
 * (`tree.nodes[1].branches[0].nodes[2] …`) are shown on that node's card.
 */

type Node = Record<string, unknown> & { node_type?: unknown };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const field = (node: Node, name: string): unknown =>
  node[name] !== undefined ? node[name] : isObject(node.properties) ? node.properties[name] : undefined;

/** The errors of each node path, and those that name no node. */
export function placeErrors(errors: string[]): { byPath: Map<string, string[]>; general: string[] } {
  const byPath = new Map<string, string[]>();
  const general: string[] = [];
  for (const error of errors) {
    const found = /^(tree\.nodes\[\d+\](?:\.branches\[\d+\]\.nodes\[\d+\])*)/.exec(error);
    if (!found) {
      general.push(error);
      continue;
    }
    const path = found[1]!;
    byPath.set(path, [...(byPath.get(path) ?? []), error.slice(path.length).replace(/^[\s:.]+/, '') || error]);
  }
  return { byPath, general };
}

const LABELS: Record<string, string> = {
  send_email: 'Email',
  send_sms: 'SMS',
  send_whatsapp: 'WhatsApp',
  send_mobile_push: 'Mobile push',
  send_inbox: 'Inbox',
  send_webpush: 'Web push',
  send_slack: 'Slack',
  send_ms_teams: 'MS Teams',
  send_multi_channel: 'Multi-channel',
  send_smart_channel_routing: 'Smart routing',
  delay: 'Delay',
  batch: 'Batch',
  digest: 'Digest',
  timewindow: 'Time window',
  branch: 'Branch',
  branch_waituntil: 'Wait until',
  httpapi_webhook: 'HTTP request',
};

const KIND = (type: string) =>
  type.startsWith('send_')
    ? 'deliver'
    : ['delay', 'batch', 'digest', 'timewindow', 'branch_waituntil'].includes(type)
      ? 'wait'
      : type === 'branch'
        ? 'branch'
        : 'other';

function summary(node: Node): string[] {
  const lines: string[] = [];
  const template = field(node, 'template');
  if (typeof template === 'string') lines.push(`template ${template}`);
  const duration = field(node, 'duration');
  if (typeof duration === 'string' || typeof duration === 'number') lines.push(`for ${duration}`);
  const channels = field(node, 'channels');
  if (Array.isArray(channels)) lines.push(channels.join(', '));
  const url = field(node, 'url');
  if (typeof url === 'string') lines.push(url);
  const event = field(node, 'event');
  if (typeof event === 'string') lines.push(`event ${event}`);
  return lines;
}

/** `node_ref` of every node path: `<node_type>_<n>`, n counting that type depth-first, branches included. */
function nodeRefs(nodes: unknown[]): Map<string, string> {
  const counts = new Map<string, number>();
  const refs = new Map<string, string>();
  const walk = (list: unknown[], prefix: string) =>
    list.forEach((node, index) => {
      if (!isObject(node) || typeof node.node_type !== 'string') return;
      const n = (counts.get(node.node_type) ?? 0) + 1;
      counts.set(node.node_type, n);
      const path = `${prefix}[${index}]`;
      refs.set(path, `${node.node_type}_${n}`);
      const branches = field(node as Node, 'branches');
      if (Array.isArray(branches))
        branches.forEach((branch, b) => {
          if (isObject(branch) && Array.isArray(branch.nodes)) walk(branch.nodes, `${path}.branches[${b}].nodes`);
        });
    });
  walk(nodes, 'tree.nodes');
  return refs;
}

function NodeList(props: { nodes: unknown[]; path: string; errors: Map<string, string[]>; refs: Map<string, string> }) {
  return (
    <ol class="flow">
      {props.nodes.map((raw, index) => {
        const path = `${props.path}[${index}]`;
        if (!isObject(raw) || typeof raw.node_type !== 'string')
          return (
            <li key={path} class="flow-item">
              <div class="node invalid" data-path={path}>
                <strong>Not a node</strong>
                <ul class="node-errors">
                  {(props.errors.get(path) ?? ['must be an object with a node_type']).map((e) => (
                    <li key={e}>{e}</li>
                  ))}
                </ul>
              </div>
            </li>
          );
        const node = raw as Node;
        const type = raw.node_type;
        const ref = props.refs.get(path) ?? type;
        const errors = props.errors.get(path) ?? [];
        const branches = field(node, 'branches');
        const name = typeof node.name === 'string' ? node.name : undefined;
        return (
          <li key={path} class="flow-item">
            <div
              class={`node kind-${KIND(type)}${errors.length ? ' invalid' : ''}`}
              data-path={path}
              data-node-ref={ref}
              aria-label={`${LABELS[type] ?? type} ${ref}${errors.length ? `, ${errors.length} error(s)` : ''}`}
            >
              <div class="node-title">
                <strong>{LABELS[type] ?? type}</strong>
                <code>{ref}</code>
              </div>
              {name && <div class="node-name">{name}</div>}
              {summary(node).map((line) => (
                <div key={line} class="node-detail">
                  {line}
                </div>
              ))}
              {errors.length > 0 && (
                <ul class="node-errors">
                  {errors.map((e) => (
                    <li key={e}>{e}</li>
                  ))}
                </ul>
              )}
            </div>
            {Array.isArray(branches) && (type === 'branch' || type === 'branch_waituntil') && (
              <div class="branches">
                {branches.map((branch, b) => {
                  const label = isObject(branch) && typeof branch.name === 'string' ? branch.name : `Branch ${b + 1}`;
                  const nodes = isObject(branch) && Array.isArray(branch.nodes) ? branch.nodes : [];
                  return (
                    <div class="branch" key={b}>
                      <div class="branch-label">{label}</div>
                      {nodes.length === 0 ? (
                        <div class="muted small">continues</div>
                      ) : (
                        <NodeList
                          nodes={nodes}
                          path={`${path}.branches[${b}].nodes`}
                          errors={props.errors}
                          refs={props.refs}
                        />
                      )}
                    </div>
                  );
                })}
              </div>
            )}
          </li>
        );
      })}
    </ol>
  );
}

export function TreeDiagram(props: { tree: unknown; errors: string[] }) {
  const { byPath, general } = placeErrors(props.errors);
  const nodes = isObject(props.tree) && Array.isArray(props.tree.nodes) ? props.tree.nodes : undefined;
  return (
    <figure class="diagram" aria-label="Workflow diagram">
      <div class="flow-start">Trigger</div>
      {nodes === undefined ? (
        <p class="notice error">The tree must be an object with a nodes array.</p>
      ) : nodes.length === 0 ? (
        <p class="muted">No steps yet: add a node to tree.nodes, for example a send_email node.</p>
      ) : (
        <NodeList nodes={nodes} path="tree.nodes" errors={byPath} refs={nodeRefs(nodes)} />
      )}
      <div class="flow-end">End</div>
      {general.length > 0 && (
        <ul class="notice error general-errors">
          {general.map((e) => (
            <li key={e}>{e}</li>
          ))}
        </ul>
      )}
    </figure>
  );
}
