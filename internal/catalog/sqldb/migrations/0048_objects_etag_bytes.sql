-- An object row's ETag as bytes: a quoted MD5 (or a multipart upload's
-- quoted MD5 and part count) is kept as a tag byte and the MD5's 16
-- bytes, 17 bytes a row fewer than its 34 characters (objects.go,
-- storedETag). PostgreSQL's TEXT cannot hold those bytes, so the column
-- becomes BYTEA, and the rewrite that takes also packs the ETags already
-- stored. SQLite keeps any value in any column: its column stays as it
-- is, its rows written before stay text and read as before, and new rows
-- are packed. The rewrite takes the table's size again in free disk and,
-- at 10 million objects, minutes in which the catalog takes no writes.
{{postgres}}ALTER TABLE objects ALTER COLUMN etag TYPE BYTEA USING CASE WHEN etag ~ '^"[0-9a-f]{32}"$' THEN '\x00'::bytea || decode(substr(etag, 2, 32), 'hex') WHEN etag ~ '^"[0-9a-f]{32}-[0-9]+"$' THEN '\x01'::bytea || decode(substr(etag, 2, 32), 'hex') || convert_to(substr(etag, 35, length(etag) - 35), 'UTF8') ELSE convert_to(etag, 'UTF8') END;
