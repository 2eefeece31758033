/** What every sandbox action answers: an HTTP status and a JSON body, which the routes send as they are. */
export interface HttpAnswer {
  status: number;
  body: Record<string, unknown>;
}
