/**
 * What a segment query may name. Everything here is an allow-list: a function, operator or type
 * not listed is refused, so a new or forgotten dangerous built-in is refused by default.
 */

/** The relations a segment query reads, with their columns (users: interface.md; events: ours). */
export const SEGMENT_COLUMNS = {
  users: [
    'distinct_id',
    'created_at',
    'updated_at',
    'language',
    'locale',
    'timezone',
    'user_properties',
    'active_channels',
    'active_emails',
    'active_phone_numbers',
  ],
  events: ['distinct_id', 'event', 'properties', 'created_at', 'tenant_id'],
} as const;

export const SEGMENT_RELATIONS: ReadonlySet<string> = new Set(Object.keys(SEGMENT_COLUMNS));

/** Columns every table has and no view exposes: naming one is an attempt to read storage details. */
export const SYSTEM_COLUMNS: ReadonlySet<string> = new Set(['ctid', 'xmin', 'xmax', 'cmin', 'cmax', 'tableoid', 'oid']);

/**
 * Ordinary functions: aggregates, window functions, string, math, date/time, json/jsonb and array
 * functions. Left out on purpose: anything reaching the catalog, settings, files, sessions,
 * sequences, large objects or other queries (pg_*, current_setting, set_config, query_to_xml,
 * dblink, lo_*, nextval, …), set generators and allocators whose size the caller picks
 * (generate_series, repeat, lpad, rpad, array_fill, factorial), and record-typing functions that
 * take a type by value (json_populate_record …).
 */
export const ALLOWED_FUNCTIONS: ReadonlySet<string> = new Set([
  // aggregates
  'count', 'sum', 'avg', 'min', 'max', 'bool_and', 'bool_or', 'every', 'array_agg', 'string_agg',
  'json_agg', 'jsonb_agg', 'json_object_agg', 'jsonb_object_agg', 'stddev', 'stddev_pop', 'stddev_samp',
  'variance', 'var_pop', 'var_samp', 'percentile_cont', 'percentile_disc', 'mode', 'corr', 'covar_pop',
  'covar_samp', 'bit_and', 'bit_or', 'grouping',
  // window functions
  'row_number', 'rank', 'dense_rank', 'percent_rank', 'cume_dist', 'ntile', 'lag', 'lead', 'first_value',
  'last_value', 'nth_value',
  // strings
  'length', 'char_length', 'character_length', 'octet_length', 'bit_length', 'lower', 'upper', 'initcap',
  'btrim', 'ltrim', 'rtrim', 'substr', 'substring', 'left', 'right', 'position', 'strpos', 'replace',
  'translate', 'concat', 'concat_ws', 'split_part', 'string_to_array', 'array_to_string', 'regexp_replace',
  'regexp_match', 'regexp_matches', 'regexp_like', 'regexp_count', 'regexp_substr', 'regexp_instr',
  'regexp_split_to_array', 'starts_with', 'reverse', 'format', 'md5', 'to_hex', 'ascii', 'chr',
  'quote_literal', 'quote_nullable', 'overlay', 'normalize', 'is_normalized', 'similar_to_escape',
  // math
  'abs', 'ceil', 'ceiling', 'floor', 'round', 'trunc', 'sign', 'mod', 'power', 'pow', 'sqrt', 'cbrt', 'exp',
  'ln', 'log', 'log10', 'div', 'pi', 'degrees', 'radians', 'width_bucket', 'gcd', 'lcm', 'random',
  'num_nulls', 'num_nonnulls',
  // date and time
  'now', 'date_trunc', 'date_part', 'extract', 'age', 'make_date', 'make_time', 'make_timestamp',
  'make_timestamptz', 'make_interval', 'to_char', 'to_date', 'to_timestamp', 'to_number', 'date_bin',
  'justify_days', 'justify_hours', 'justify_interval', 'isfinite', 'clock_timestamp', 'statement_timestamp',
  'transaction_timestamp', 'timezone', 'overlaps',
  // json and jsonb
  'jsonb_array_length', 'jsonb_array_elements', 'jsonb_array_elements_text', 'jsonb_each', 'jsonb_each_text',
  'jsonb_object_keys', 'jsonb_extract_path', 'jsonb_extract_path_text', 'jsonb_typeof', 'jsonb_build_object',
  'jsonb_build_array', 'jsonb_strip_nulls', 'jsonb_path_exists', 'jsonb_path_match', 'jsonb_path_query',
  'jsonb_path_query_array', 'jsonb_path_query_first', 'jsonb_set', 'jsonb_insert', 'jsonb_pretty',
  'jsonb_object', 'jsonb_to_record', 'jsonb_to_recordset', 'to_jsonb', 'to_json', 'row_to_json',
  'array_to_json', 'json_build_object', 'json_build_array', 'json_object', 'json_array_length',
  'json_array_elements', 'json_array_elements_text', 'json_each', 'json_each_text', 'json_object_keys',
  'json_extract_path', 'json_extract_path_text', 'json_typeof', 'json_strip_nulls',
  // arrays
  'array_length', 'cardinality', 'array_position', 'array_positions', 'array_append', 'array_prepend',
  'array_cat', 'array_remove', 'array_replace', 'array_lower', 'array_upper', 'array_ndims', 'array_dims',
  'unnest', 'trim_array',
]);

/**
 * The parser itself writes some standard SQL syntax as pg_catalog-qualified calls
 * (EXTRACT(… FROM …), SUBSTRING(… FROM …), POSITION(… IN …), TRIM(…), AT TIME ZONE, OVERLAPS,
 * IS NORMALIZED, SIMILAR TO): these are the only qualified function names accepted.
 */
export const SQL_SYNTAX_FUNCTIONS: ReadonlySet<string> = new Set([
  'extract', 'substring', 'position', 'btrim', 'ltrim', 'rtrim', 'overlay', 'timezone', 'overlaps',
  'normalize', 'is_normalized', 'similar_to_escape',
]);

/** Comparison, arithmetic, string, pattern, jsonb and array operators. */
export const ALLOWED_OPERATORS: ReadonlySet<string> = new Set([
  '=', '<>', '!=', '<', '>', '<=', '>=', '+', '-', '*', '/', '%', '^', '|/', '||/', '@', '&', '|', '#', '~',
  '<<', '>>', '||', '~~', '!~~', '~~*', '!~~*', '~*', '!~', '!~*', '->', '->>', '#>', '#>>', '@>', '<@',
  '?', '?|', '?&', '&&', '#-', '@?', '@@',
]);

/**
 * Types a value may be cast to (by the name PostgreSQL stores). No reg* types (they look names up in
 * the catalog), no oid/xid/tid, no types outside pg_catalog.
 */
export const ALLOWED_TYPES: ReadonlySet<string> = new Set([
  'text', 'varchar', 'bpchar', 'char', 'name', 'int2', 'int4', 'int8', 'float4', 'float8', 'numeric', 'bool',
  'date', 'time', 'timetz', 'timestamp', 'timestamptz', 'interval', 'json', 'jsonb', 'jsonpath', 'uuid',
  'bit', 'varbit', 'bytea',
]);

/** CURRENT_DATE and friends are fine; CURRENT_USER, SESSION_USER, CURRENT_SCHEMA … describe the server. */
export const ALLOWED_SQL_VALUE_FUNCTIONS: ReadonlySet<string> = new Set([
  'SVFOP_CURRENT_DATE', 'SVFOP_CURRENT_TIME', 'SVFOP_CURRENT_TIME_N', 'SVFOP_CURRENT_TIMESTAMP',
  'SVFOP_CURRENT_TIMESTAMP_N', 'SVFOP_LOCALTIME', 'SVFOP_LOCALTIME_N', 'SVFOP_LOCALTIMESTAMP',
  'SVFOP_LOCALTIMESTAMP_N',
]);
