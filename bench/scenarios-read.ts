import { randomInts, signRequest, userId } from './data.js';
import type { LoadFigures, NextRequest, RequestSpec } from './load.js';
import {
  combine,
  cycle,
  measure,
  notRun,
  probe,
  type ProbeVerdict,
  type ScenarioContext,
  type ScenarioResult,
} from './measure.js';
import { base, management } from './seed-api.js';

const USER_PATHS = 20_000;

/**
 * Scenarios 1 and 6 share one baseline: rounds of baseline → Herald (Bearer) → Herald (signed),
 * interleaved so that noise from other work on the machine falls on all three alike.
 */
export async function readPath(
  ctx: ScenarioContext,
  run: { bearer: boolean; signed: boolean },
): Promise<ScenarioResult[]> {
  const connections = 50;
  const one = { id: '1', title: 'GET /v1/user/{id}/ (Bearer API key), random ids', connections };
  const six = { id: '6', title: 'GET /v1/user/{id}/ (signed workspace key), random ids', connections };
  const paths = randomInts(USER_PATHS, ctx.sizes.users, 20261125).map((i) => `/v1/user/${userId(i)}/`);
  const bearer = (path: string): RequestSpec => base(ctx.main, 'GET', path);
  const signedAt =
    (date: string) =>
    (path: string): RequestSpec => ({
      method: 'GET',
      path,
      headers: { authorization: signRequest(ctx.pair, { method: 'GET', path, date }), date },
    });
  const plain = (path: string): RequestSpec => ({ method: 'GET', path });

  const results: ScenarioResult[] = [];
  const baselineCheck = await probe(ctx.baseline, plain(paths[0] as string), 'baseline GET /v1/user/{id}/');
  if (!baselineCheck.ok) throw new Error(baselineCheck.reason);
  const bearerCheck = run.bearer
    ? await probe(ctx.herald, bearer(paths[0] as string), 'GET /v1/user/{id}/ with Bearer')
    : null;
  const signedCheck = run.signed
    ? signedVerdict(
        await probe(
          ctx.herald,
          signedAt(new Date().toUTCString())(paths[0] as string),
          'GET /v1/user/{id}/ signed with the workspace key',
        ),
      )
    : null;
  const doBearer = bearerCheck?.ok === true;
  const doSigned = signedCheck?.ok === true;
  if (bearerCheck && !bearerCheck.ok) results.push(notRun(one, bearerCheck));
  if (signedCheck && !signedCheck.ok) results.push(notRun(six, signedCheck));
  if (!doBearer && !doSigned) return results;

  const requests = (build: (path: string) => RequestSpec) => (): NextRequest => cycle(paths.map(build));
  const runs: { baseline: LoadFigures[]; bearer: LoadFigures[]; signed: LoadFigures[] } = {
    baseline: [],
    bearer: [],
    signed: [],
  };
  const { rounds, roundSeconds } = ctx.sizes;
  for (let round = 0; round < rounds; round += 1) {
    const options = { warmup: round === 0, seconds: roundSeconds };
    ctx.log(
      `  round ${round + 1}/${rounds}: baseline${doBearer ? ', Herald Bearer' : ''}${doSigned ? ', Herald signed' : ''}`,
    );
    runs.baseline.push(await measure(ctx, ctx.baseline, connections, requests(plain), options));
    if (doBearer) runs.bearer.push(await measure(ctx, ctx.herald, connections, requests(bearer), options));
    // A fresh Date for every run keeps the signed requests well inside the allowed clock skew.
    if (doSigned)
      runs.signed.push(
        await measure(ctx, ctx.herald, connections, requests(signedAt(new Date().toUTCString())), options),
      );
  }
  const baseline = {
    label: 'baseline (Fastify + pg, no auth)',
    server: 'baseline' as const,
    figures: combine(runs.baseline),
  };
  const notes = [
    `${rounds} interleaved rounds of ${roundSeconds} s per server; req/s and latencies are the mean over rounds, the ratio the median of the per-round ratios; the same id sequence for every server`,
  ];
  const perRound = (herald: LoadFigures[]) =>
    herald.map((f, i) => f.requestsPerSec / (runs.baseline[i] as LoadFigures).requestsPerSec);
  if (doBearer) {
    results.push({
      ...one,
      status: 'measured',
      notes,
      roundRatios: perRound(runs.bearer),
      series: [{ label: 'Herald', server: 'Herald', figures: combine(runs.bearer) }, baseline],
    });
  }
  if (doSigned) {
    results.push({
      ...six,
      status: 'measured',
      notes,
      roundRatios: perRound(runs.signed),
      series: [{ label: 'Herald (signed)', server: 'Herald', figures: combine(runs.signed) }, baseline],
    });
  }
  return results.sort((a, b) => a.id.localeCompare(b.id));
}

/**
 * A build without the signed scheme answers 401 asking for a Bearer key: that is "not available".
 * Any other 401 means the scheme is there and rejected our signature: a failure worth reporting.
 */
function signedVerdict(verdict: ProbeVerdict): ProbeVerdict {
  if (verdict.ok || !/answered 401: .*expected "Bearer/.test(verdict.reason)) return verdict;
  return { ok: false, status: 'unavailable', reason: verdict.reason };
}

/** Scenario 5: the management list that SDK setup reads, with a service token. */
export async function listWorkspaceKeys(ctx: ScenarioContext): Promise<ScenarioResult> {
  const scenario = { id: '5', title: 'GET /management/v1/{workspace}/ws_key/ (service token)', connections: 20 };
  const spec = management(ctx.main, 'GET', '/ws_key/');
  const check = await probe(ctx.herald, spec, 'GET /v1/{workspace}/ws_key/');
  if (!check.ok) return notRun(scenario, check);
  const figures = await measure(ctx, ctx.herald, scenario.connections, () => () => spec);
  return { ...scenario, status: 'measured', series: [{ label: 'Herald', server: 'Herald', figures }] };
}
