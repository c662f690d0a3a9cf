import { api } from '../api';
import { useAsync } from '../hooks';
import { Empty, ErrorNotice, Json, Loading, Page } from '../components/ui';

interface QueueRow {
  name?: string;
  queue?: string;
  waiting?: number;
  active?: number;
  failed?: number;
  oldest_job_age_seconds?: number | null;
  [key: string]: unknown;
}

const age = (seconds: number | null | undefined) =>
  seconds === null || seconds === undefined
    ? '—'
    : seconds < 60
      ? `${Math.round(seconds)} s`
      : seconds < 3600
        ? `${Math.round(seconds / 60)} min`
        : `${(seconds / 3600).toFixed(1)} h`;

/** The durable queue as this workspace sees it: per queue, jobs waiting, active and failed, and the oldest one's age. */
export function Queue(props: { ws: string }) {
  const overview = useAsync(() => api.queues(props.ws), [props.ws]);
  const data = overview.data;
  const queues = (
    Array.isArray(data?.queues) ? data.queues : Array.isArray(data?.results) ? data.results : []
  ) as QueueRow[];
  const failed = (Array.isArray(data?.failed_jobs) ? data.failed_jobs : []) as Record<string, unknown>[];
  return (
    <Page
      title="Queue"
      subtitle="Work waiting to run: triggers, steps, deliveries."
      actions={
        <button type="button" onClick={overview.reload}>
          Refresh
        </button>
      }
    >
      {overview.error ? (
        <ErrorNotice error={overview.error} what="The queue overview" />
      ) : !data ? (
        <Loading />
      ) : queues.length === 0 ? (
        <Empty title="The queue is empty.">Nothing is waiting: every trigger so far has been handled.</Empty>
      ) : (
        <table class="table">
          <thead>
            <tr>
              <th scope="col">Queue</th>
              <th scope="col">Waiting</th>
              <th scope="col">Active</th>
              <th scope="col">Failed</th>
              <th scope="col">Oldest job</th>
            </tr>
          </thead>
          <tbody>
            {queues.map((q) => (
              <tr key={q.name ?? q.queue}>
                <td class="mono">{q.name ?? q.queue}</td>
                <td>{q.waiting ?? 0}</td>
                <td>{q.active ?? 0}</td>
                <td>{q.failed ?? 0}</td>
                <td>{age(q.oldest_job_age_seconds)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {failed.length > 0 && (
        <section class="group">
          <h2>Failed jobs</h2>
          {failed.map((job, i) => (
            <Json key={i} value={job} />
          ))}
        </section>
      )}
    </Page>
  );
}
