import type { ComponentChildren } from 'preact';
import { setQuery } from '../router';
import type { CursorList } from '../types';
import { CursorPager, Empty, ErrorNotice, Loading } from './ui';

export interface Column<T> {
  header: string;
  cell: (row: T) => ComponentChildren;
}

/**
 * A cursor-paged list page's table (Messages, Runs, Users): its error, loading and empty states, the
 * rows by column, and the pager, whose cursors go into the URL (so a page can be linked and reloaded).
 */
export function PagedTable<T>(props: {
  list: { data?: CursorList<T>; error?: unknown };
  what: string;
  empty: { title: string; children?: ComponentChildren };
  columns: Column<T>[];
  rowKey: (row: T) => string;
}) {
  const { data, error } = props.list;
  if (error) return <ErrorNotice error={error} what={props.what} />;
  if (!data) return <Loading />;
  if (data.results.length === 0) return <Empty title={props.empty.title}>{props.empty.children}</Empty>;
  return (
    <>
      <table class="table">
        <thead>
          <tr>
            {props.columns.map((c) => (
              <th scope="col" key={c.header}>
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {data.results.map((row) => (
            <tr key={props.rowKey(row)}>
              {props.columns.map((c) => (
                <td key={c.header}>{c.cell(row)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      <CursorPager meta={data.meta} onPage={(c) => setQuery({ before: c.before, after: c.after })} />
    </>
  );
}
