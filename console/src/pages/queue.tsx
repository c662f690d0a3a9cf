import { api } from '../api';
import { useAsync } from '../hooks';
import { Empty, ErrorNotice, Loading, Page, Time } from '../components/ui';

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
  const queues = data?.queues ?? [];
  const failed = data?.failed_jobs ?? [];
  const idle = queues.every((q) => q.waiting === 0 && q.active === 0 && q.failed === 0);
  return (
    <Page
      title="Queue"
      subtitle="This workspace's work in the durable queue: triggers, run steps, deliveries. Other workspaces' jobs are never shown."
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
      ) : idle ? (
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
              <tr key={q.name}>
                <td class="mono">{q.name}</td>
                <td>{q.waiting}</td>
                <td>{q.active}</td>
                <td>{q.failed}</td>
                <td>{age(q.oldest_job_age_seconds)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {failed.length > 0 && (
        <section class="group">
          <h2>Failed jobs</h2>
          <table class="table" aria-label="Failed jobs">
            <thead>
              <tr>
                <th scope="col">Queue</th>
                <th scope="col">Error</th>
                <th scope="col">Retries</th>
                <th scope="col">Failed</th>
              </tr>
            </thead>
            <tbody>
              {failed.map((job) => (
                <tr key={job.id}>
                  <td class="mono">{job.queue}</td>
                  <td>{job.error ?? <span class="muted">no error recorded</span>}</td>
                  <td>{job.retry_count}</td>
                  <td>
                    <Time at={job.failed_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
    </Page>
  );
}
