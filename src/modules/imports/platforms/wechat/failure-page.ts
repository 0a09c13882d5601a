import { ImportError, PASTE_INSTEAD } from "../../import-error";
import { importedTitle } from "../../../notes/note-text";

/** WeChat's own wording, shortened: it is page text, so it is bounded before it reaches a message. */
function quoted(text: string): string {
  return Array.from(importedTitle(text)).slice(0, 160).join("");
}

export function blockedByWechat(): ImportError {
  return new ImportError(
    `WeChat blocked automated access to this article and asked for a verification check. ${PASTE_INSTEAD}`,
    { permanent: true },
  );
}

/**
 * Why a WeChat page that holds no article failed: deleted, taken down, temporarily hidden, a
 * captcha, or something else. Always an error: a page without an article never becomes a note.
 */
export function explainFailurePage(document: Document): ImportError {
  const pageText = (document.body?.textContent ?? "").replace(/\s+/g, " ");
  const msgTitle = quoted(document.querySelector(".weui-msg__title")?.textContent ?? "");
  const msgDesc = quoted(document.querySelector(".weui-msg__desc")?.textContent ?? "");
  const title = document.querySelector("title")?.textContent ?? "";

  if (pageText.includes("环境异常") || pageText.includes("完成验证后即可继续访问")) return blockedByWechat();

  if (
    /已被发布者删除|deleted by the author/i.test(msgTitle) ||
    pageText.includes("已被发布者删除") ||
    pageText.includes("The content has been deleted by the author")
  ) {
    return new ImportError(
      "This WeChat article has been deleted by its author, so there is nothing to import.",
      { permanent: true },
    );
  }

  if (msgTitle.includes("违规")) {
    const reason = msgDesc ? ` WeChat's reason: "${msgDesc}"` : "";
    return new ImportError(
      `WeChat has taken this article down for violating its rules, so it cannot be imported.${reason}`,
      { permanent: true },
    );
  }

  if (title.includes("暂时无法查看") || (document.querySelector(".mesg-block")?.textContent ?? "").includes("暂时无法查看")) {
    return new ImportError(
      `WeChat says this article is temporarily unavailable (该内容暂时无法查看). Try again later, or if you can still read it in WeChat: ${PASTE_INSTEAD}`,
      { permanent: true },
    );
  }

  if (msgTitle) {
    const detail = msgDesc ? ` ${msgDesc}` : "";
    return new ImportError(`WeChat did not show this article. Its page says: "${msgTitle}"${detail}`, {
      permanent: true,
    });
  }

  return new ImportError(
    `No article found on this WeChat page: it may be a video or audio post, or the link may be incomplete. Check the link, or: ${PASTE_INSTEAD}`,
    { permanent: true },
  );
}
