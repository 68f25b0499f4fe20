package sqldb

// MigrateTo builds a catalog of an older schema: the migrations up to and
// including last.
var MigrateTo = migrate
