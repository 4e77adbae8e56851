"""What every kind of campaign's progress file shares: the folder it goes to, how it is read and the error it raises.

Why: the lower-bound campaigns (:mod:`service.bound_campaigns`), the rollout campaigns
(:mod:`service.rollouts`) and the polishes (:mod:`service.polishes`) each keep a progress file, by default in
the same folder, and each refuses a file it cannot continue.  One folder name and one exception class, defined
here and nowhere else, mean that the files land side by side and that one ``except CampaignError`` catches
every kind's refusal; :func:`read_json` says alike, for every kind, that a file cannot be read or is not JSON, and
:class:`ProgressFile` finds, checks, reads and closes a rollout's and a polish's files one way.  This module imports
none of the campaigns' modules, so any of them can import it.
"""

from __future__ import annotations

import datetime
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from service.store.files import update_json

CAMPAIGNS_ENV = "BULLSCOWS_CAMPAIGNS"
"""The environment variable naming the campaigns' folder (``bullscows --campaigns DIR`` sets it for one command)."""
CHECKOUT_CAMPAIGNS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "campaigns")
"""The checkout's ``campaigns/``, beside the packages: the lab's committed progress files (an installed package
carries none)."""
MAX_SHARES = 64
"""The most shares a check, search or scan may cut its position into (``--shares``, a spec's ``shares``)."""


SEARCH_KEY = "search"
"""The name a search job's position goes by in its progress (a check's parts go by their responses)."""


def share_key(name: str, share: tuple[int, int]) -> str:
    """Where a check keeps the progress of one share of a part (the part's own name for the whole search)."""
    mine, shares = share
    return name if shares == 1 else f"{name} share {mine + 1}/{shares}"


SCAN_KEY = "scan"
"""A scan job's progress key (its shares': :func:`share_key` of it)."""


SCAN_STATE = ("next", "guesses", "proven", "found", "failed_on")
"""A scan share's progress as its file keeps it (the unit's output adds the guess it settled ``last``, and how many
it ``tried``)."""


class CampaignError(ValueError):
    """A progress file that cannot be continued (unreadable, another game's or plan's, finished)."""


def campaign_dir() -> str:
    """The folder where progress files go by default: ``BULLSCOWS_CAMPAIGNS`` when set, else the checkout's
    ``campaigns/``, whichever folder the command runs from (a lab command works from anywhere).

    :raises CampaignError: that folder does not exist (a mistyped ``--campaigns``, or an installed package, which
        has no checkout beside it), said with how to name one."""
    chosen = os.environ.get(CAMPAIGNS_ENV)
    folder = os.path.abspath(chosen) if chosen else CHECKOUT_CAMPAIGNS
    if not os.path.isdir(folder):
        why = (f"the folder --campaigns or {CAMPAIGNS_ENV} names does not exist" if chosen
               else "this installation has no checkout's campaigns/ beside it")
        raise CampaignError(f"{folder}: no campaigns folder there ({why}); name one with `bullscows --campaigns DIR` "
                            f"or {CAMPAIGNS_ENV}")
    return folder


def read_json(path: str) -> Any:
    """The JSON document in ``path`` (a progress file, a spec).

    :raises CampaignError: it cannot be read, or is not JSON, said in one line naming the file."""
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except OSError as exc:
        raise CampaignError(f"{path} cannot be read: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise CampaignError(f"{path} is not JSON: {exc}") from None


def default_progress(prefix: str, spec: str) -> str:
    """The default progress file of ``spec``'s campaign of a kind in the campaigns folder (:func:`campaign_dir`):
    ``<prefix>-5-10-0.json``."""
    return os.path.join(campaign_dir(), f"{prefix}-{spec.replace(',', '-')}.json")


@dataclass(frozen=True)
class ProgressFile:
    """What one kind of campaign's progress files share: their name in the campaigns folder, their format and the key
    of what they accumulate, how they are read and how they are closed once the campaign's tree is judged.

    Why one class: the rollouts' and the polishes' files (:mod:`service.rollouts`, :mod:`service.polishes`) differ
    in what they hold, not in how they are found, checked, read and closed; each kind is one instance."""

    prefix: str
    """The files' name in the campaigns folder: ``<prefix>-5-10-0.json``."""
    format: str
    """Their ``format`` field."""
    body: str
    """The key of what they accumulate (a dict): a rollout's ``units``, a polish's ``positions``."""
    what: str
    """What such a file is, for an error: ``"a rollout campaign's progress file"``."""
    holds: str
    """What its body holds, for an error: ``"its units by response"``."""
    kept: Callable[[dict[str, Any]], dict[str, Any]]
    """What a closed file keeps of an item of its body (what the judged tree now holds need not be kept)."""
    finished: Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]] = lambda _doc, summary: summary
    """The ``finished`` record of a closed file, from its document and the judgment's summary (the day is added)."""

    def default_path(self, spec: str) -> str:
        """The progress file of ``spec``'s campaign in the campaigns folder (:func:`default_progress`)."""
        return default_progress(self.prefix, spec)

    def read(self, path: str) -> dict[str, Any] | None:
        """The file's document, or None when there is none yet.

        :raises CampaignError: the file is unreadable, or not one of this kind's."""
        if not os.path.exists(path):
            return None
        doc = read_json(path)
        if not isinstance(doc, dict) or doc.get("format") != self.format or not isinstance(doc.get(self.body), dict):
            raise CampaignError(f"{path}: not {self.what} (format {self.format!r}, {self.holds})")
        return dict(doc)

    def finish(self, path: str, summary: dict[str, Any]) -> None:
        """Close a campaign whose tree was judged (shipped or not): ``summary`` kept in its ``finished`` record
        (:attr:`finished`, with the day) and each item of its body reduced to what :attr:`kept` keeps, so that the
        same campaign run again does nothing it did; nothing when there is no file."""
        def closed(doc: dict[str, Any] | None) -> dict[str, Any] | None:
            if doc is None:
                return None
            doc["finished"] = {**self.finished(doc, summary), "date": datetime.date.today().isoformat()}
            doc[self.body] = {k: self.kept(v) for k, v in doc[self.body].items()}
            return doc

        update_json(path, closed, load=self.read)
