import { envFromDockerFlags } from "../shared/docker-flags";
import type { State } from "../shared/state";
import type { Template } from "./template-state";

/** The caller's own templates and other users' public ones. */
export function visibleTemplates(state: State): Template[] {
  return state.templates.filter((t) => t.creatorId === state.user.id || !t.content.private);
}

export function findVisibleTemplate(
  state: State,
  by: { hashId?: string | null; id?: number | null },
): Template | undefined {
  return visibleTemplates(state).find((t) => (by.hashId ? t.hashId === by.hashId : t.id === by.id));
}

/** `image:tag`, unless the image names its tag itself (which the service allows). */
export function imageOf(template: Template): string {
  const { image, tag } = template.content;
  const lastPart = image.slice(image.lastIndexOf("/") + 1);
  return lastPart.includes(":") || lastPart.includes("@") ? image : `${image}:${tag}`;
}

/** What an instance launched from a template gets unless its request says otherwise. */
export function templateDefaults(template: Template) {
  const { content } = template;
  const login =
    content.docker_login_user && template.dockerLoginPass
      ? `-u ${content.docker_login_user} -p ${template.dockerLoginPass} ${content.docker_login_repo ?? ""}`.trim()
      : null;
  return {
    image: imageOf(template),
    diskGb: content.recommended_disk_space,
    onstart: content.onstart,
    runtype: content.runtype,
    env: envFromDockerFlags(content.env),
    imageLogin: login,
    template: { id: template.id, hashId: template.hashId, name: content.name },
  };
}

/** Counts a launch: `count_created` and `recent_create_date`. */
export function noteLaunch(template: Template, nowMs: number): void {
  template.countCreated += 1;
  template.recentCreateDateSeconds = nowMs / 1000;
}
