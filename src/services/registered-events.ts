import type { Db, Trx } from '../db/database.js';
import { badRequest } from '../errors.js';
import { findSchemaLinkTargets } from '../repositories/payload-schemas.js';
import { findRegisteredEvents, replaceRegisteredEvents } from '../repositories/registered-events.js';

type Link = { schema: string; version_no?: number | null };
type LinkTarget = Awaited<ReturnType<typeof findSchemaLinkTargets>>[number];

/** Why a link cannot be made (undefined when it can): it must name a committed schema, and a version of it that exists. */
function linkProblem(link: Link, target: LinkTarget | undefined): string | undefined {
  if (!target || target.schema_id === null) return `schema '${link.schema}' not found`;
  if (target.live_version_no === null) return `schema '${link.schema}' has never been committed`;
  if ((link.version_no ?? null) !== null && !target.version_exists)
    return `schema '${link.schema}' has no version ${link.version_no}`;
  return undefined;
}

const invalidLink = (reason: string) => badRequest(`payload_schema: ${reason}`, { payload_schema: [reason] });

/** A link must name a committed schema, and a version of it that exists. */
export async function resolveLink(db: Db, workspaceId: number, link: Link | null | undefined) {
  if (link === undefined || link === null) return link;
  const versionNo = link.version_no ?? null;
  const [target] = await findSchemaLinkTargets(db, workspaceId, [{ schema: link.schema, version_no: versionNo }]);
  const problem = linkProblem(link, target);
  if (problem) throw invalidLink(problem);
  return { schemaId: target!.schema_id!, versionNo };
}

/**
 * `POST /v1/{ws}/bulk/event/` (what the hosted platform's CLI `event push` sends): creates or
 * replaces every event given, in one transaction, or none when one of them is wrong (400 naming
 * it). A fixed number of statements whatever the batch size.
 */
export async function replaceEvents(
  trx: Trx,
  workspaceId: number,
  events: { name: string; description?: string | null; payload_schema?: Link | null }[],
) {
  const problems: Record<string, string> = {};
  const firstAt = new Map<string, number>();
  events.forEach((event, index) => {
    const first = firstAt.get(event.name);
    if (first !== undefined) problems[`events[${index}].name`] = `'${event.name}' is also events[${first}]`;
    else firstAt.set(event.name, index);
  });
  const linked = events.flatMap((event, index) =>
    event.payload_schema ? [{ index, link: event.payload_schema }] : [],
  );
  const targets = await findSchemaLinkTargets(
    trx,
    workspaceId,
    linked.map(({ link }) => ({ schema: link.schema, version_no: link.version_no ?? null })),
  );
  linked.forEach(({ index, link }, i) => {
    const problem = linkProblem(link, targets[i]);
    if (problem) problems[`events[${index}].payload_schema`] = problem;
  });
  const reasons = Object.entries(problems);
  if (reasons.length > 0) throw badRequest(reasons.map(([at, reason]) => `${at}: ${reason}`).join('; '), problems);
  const schemaOf = new Map(linked.map(({ index, link }, i) => [index, { link, target: targets[i]! }]));
  await replaceRegisteredEvents(
    trx,
    workspaceId,
    events.map((event, index) => {
      const found = schemaOf.get(index);
      return {
        name: event.name,
        description: event.description ?? null,
        link: found ? { schemaId: found.target.schema_id!, versionNo: found.link.version_no ?? null } : null,
      };
    }),
  );
  return findRegisteredEvents(
    trx,
    workspaceId,
    events.map((event) => event.name),
  );
}
