/** A trigger record's intake, as the engine answers it (src/engine/intake.ts `Intake`). */
type Intake = { ok: true; executionId: string } | { ok: false; status: number; message: string };

/** The 207 answer to an array of trigger records (docs/spec/engine.md §1): one result per record, in order. */
export const presentTriggerResults = (results: Intake[]) => ({
  status: 'success' as const,
  records: results.map((result) =>
    result.ok
      ? { status: 'success' as const, status_code: 202, message_id: result.executionId }
      : {
          status: 'error' as const,
          status_code: result.status,
          error: { message: result.message, type: result.status === 404 ? 'not_found' : 'validation_error' },
        },
  ),
});
