/** Contact ids one group-membership call takes (spec §4.4, §8): GET /status, the tool guides and the schemas read it. */
export const GROUP_MEMBERSHIP_MAX_IDS = 10_000;
