/** The shape of one validation issue, as FastAPI answers it with pydantic v2 (built in validation-issue.ts). */
export type Loc = (string | number)[];

export interface ValidationIssue {
  type: string;
  loc: Loc;
  msg: string;
  input: unknown;
  ctx?: Record<string, unknown>;
}
