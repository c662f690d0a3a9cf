-- Gives herald_segments (the role segment dry runs log in as, docs/segments.md) the password compose
-- passes as :pw. Run by the compose service `segments-role` on every `docker compose up`, before Herald
-- starts: it creates the role on a new volume (as Herald's migration would, but with a password) and sets the
-- password on a volume made before it had one. The postgres image authenticates TCP logins by password.
select format('create role herald_segments login noinherit nosuperuser nocreatedb nocreaterole noreplication nobypassrls password %L', :'pw')
  where not exists (select from pg_roles where rolname = 'herald_segments')
\gexec
select format('alter role herald_segments password %L', :'pw')
\gexec
