/** The little of npm `sql.js` (which ships no types) the web apps test uses in Node. */
declare module "sql.js" {
  type Value = string | number | Uint8Array | null
  interface Database {
    run(sql: string, params?: Value[]): Database
    exec(sql: string): { columns: string[]; values: Value[][] }[]
    export(): Uint8Array
  }
  interface SqlJs {
    Database: new (data?: ArrayLike<number>) => Database
  }
  export default function initSqlJs(config?: object): Promise<SqlJs>
}
