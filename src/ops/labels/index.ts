// The operations of label rules (src/labels/). src/ops/registry.ts joins these lists.
export { labelRuleOps } from './rules.ts';
