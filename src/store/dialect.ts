// Which SQL engine a Kysely handle speaks (CONTRACT §8: the dialect is a setting). Queries stay in the query builder;
// where the engines truly differ (full-text search, upserts that ignore, time arithmetic) code asks this once.
import {
  type ColumnDefinitionNode,
  DataTypeNode,
  GeneratedNode,
  type Kysely,
  type KyselyPlugin,
  OperationNodeTransformer,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  PostgresAdapter,
  type QueryResult,
  RawNode,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';

export type Dialect = 'sqlite' | 'postgres';

export function dialectOf<T>(db: Kysely<T>): Dialect {
  return (db as Kysely<unknown>).getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/**
 * The one schema convention the migrations share across engines: they declare `integer` (times are milliseconds
 * since 1970, beyond a 32-bit integer) and `blob`; on PostgreSQL those become `bigint` and `bytea`. SQLite gives
 * `integer` 64 bits already, so one migration text serves both.
 */
class PostgresTypes extends OperationNodeTransformer {
  // SQLite's `integer primary key autoincrement` is PostgreSQL's identity column.
  // Text compares byte-wise, as in SQLite (its BINARY collation), whatever the database's locale: label-prefix scopes
  // are range scans (label >= p and label < p || U+10FFFF) that a linguistic collation (en_US.UTF-8, which ignores
  // punctuation at first) would widen or narrow, and cursors rely on one order of ids.
  protected override transformColumnDefinition(node: ColumnDefinitionNode): ColumnDefinitionNode {
    let out = super.transformColumnDefinition(node);
    if (DataTypeNode.is(out.dataType) && out.dataType.dataType === 'text')
      out = { ...out, dataType: RawNode.createWithSql('text collate "C"') };
    if (!out.autoIncrement) return out;
    return { ...out, autoIncrement: false, generated: GeneratedNode.create({ byDefault: true, identity: true }) };
  }

  protected override transformDataType(node: DataTypeNode): DataTypeNode {
    if (node.dataType === 'integer') return { ...node, dataType: 'bigint' };
    if (node.dataType === 'blob') return { ...node, dataType: 'bytea' };
    return node;
  }
}

export class PostgresTypesPlugin implements KyselyPlugin {
  private readonly t = new PostgresTypes();
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.t.transformNode(args.node);
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}
