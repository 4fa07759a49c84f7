import type { Context } from 'koa';
import { type AppError, toProblem } from '../errors.ts';

export function sendProblem(ctx: Context, e: AppError): void {
  ctx.status = e.status;
  for (const [k, v] of Object.entries(e.headers)) ctx.set(k, v);
  ctx.type = 'application/problem+json; charset=utf-8';
  ctx.body = JSON.stringify(toProblem(e));
}
