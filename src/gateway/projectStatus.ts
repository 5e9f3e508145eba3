/** Project publish states (spec/gateway.md §4): published means `live` or `live_with_unpublished_updates`. */

export const PUBLISH_STATUSES = [
  "draft",
  "publishing",
  "initial_publish_failed",
  "live",
  "live_with_unpublished_updates",
] as const;

export type PublishStatus = (typeof PUBLISH_STATUSES)[number];

export function isPublishedStatus(publishStatus: string | undefined): boolean {
  const value = publishStatus?.trim().toLowerCase();
  return value === "live" || value === "live_with_unpublished_updates";
}
