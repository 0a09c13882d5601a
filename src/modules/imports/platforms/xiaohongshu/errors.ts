import { ImportError, PASTE_INSTEAD } from "../../import-error";

/** The ways Xiaohongshu refuses to show a note, each with what the user can do about it. */

export function redirectedHome(): ImportError {
  return new ImportError(
    `Xiaohongshu sent this link to its home page instead of the note: it only serves notes through a signed share link (with an xsec_token), and this link's token is missing or expired. Copy a fresh link from the app's share menu, or: ${PASTE_INSTEAD}`,
    { permanent: true },
  );
}

export function notFoundPage(): ImportError {
  return new ImportError(
    `Xiaohongshu answered with its "page not found" page (你访问的页面不见了): the note was deleted or made private, or the link lacks a valid signed xsec_token. ${PASTE_INSTEAD}`,
    { permanent: true },
  );
}

export function captchaPage(): ImportError {
  return new ImportError(
    `Xiaohongshu blocked automated access and asked for a captcha, so the note could not be read. ${PASTE_INSTEAD}`,
    { permanent: true },
  );
}

export function loginRequired(): ImportError {
  return new ImportError(
    `Xiaohongshu asked for a login before showing this note, which the importer cannot do. ${PASTE_INSTEAD}`,
    { permanent: true },
  );
}

export function noNoteOnPage(): ImportError {
  return new ImportError(
    `The Xiaohongshu page carries no note: Xiaohongshu showed a captcha or "not found" page, which happens when a link has no valid signed xsec_token or the note is gone. ${PASTE_INSTEAD}`,
    { permanent: true },
  );
}

export function notANoteLink(): ImportError {
  return new ImportError(
    "This is not a Xiaohongshu note link: use the note's share link (https://www.xiaohongshu.com/explore/<id>?xsec_token=… or an xhslink.com short link).",
    { permanent: true },
  );
}
