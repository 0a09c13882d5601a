import { sql, type Column } from "drizzle-orm";

type Unpacked<T extends Record<string, Column>> = { [K in keyof T]: T[K]["_"]["notNull"] extends true ? T[K]["_"]["data"] : T[K]["_"]["data"] | null };

/**
 * A row read as one JSON array column instead of one column per field. @libsql/client builds each
 * result row property by property and asks the statement for its columns twice per call, so a hot
 * read of ten columns costs about twice what one column does; SQLite's `json_array` and one
 * `JSON.parse` are cheaper. `unpack` gives back the fields by name, each through its column's own
 * mapping (a boolean column comes back a boolean), so callers see what a plain select gives.
 */
export function packedRow<T extends Record<string, Column>>(columns: T) {
  const keys = Object.keys(columns) as (keyof T & string)[];
  const list = keys.map((key) => columns[key]!);
  const fromValues = (values: unknown[]): Unpacked<T> => {
    const row: Record<string, unknown> = {};
    for (let index = 0; index < list.length; index++) {
      const value = values[index];
      row[keys[index]!] = value === null ? null : list[index]!.mapFromDriverValue(value);
    }
    return row as never;
  };
  return {
    /** The select's one field. */
    column: sql<string>`json_array(${sql.join(list, sql`, `)})`,
    unpack: (packed: string): Unpacked<T> => fromValues(JSON.parse(packed) as unknown[]),
    /** The same from the array already parsed: a `json_group_array` of `column` holds many rows. */
    fromValues,
  };
}
