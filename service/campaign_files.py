"""What every kind of campaign's progress file shares: the folder it goes to, how it is read and the error it raises.

Why: the lower-bound campaigns (:mod:`service.bound_campaigns`), the rollout campaigns
(:mod:`service.rollouts`) and the polishes (:mod:`service.polishes`) each keep a progress file, by default in
the same folder, and each refuses a file it cannot continue.  One folder name and one exception class, defined
here and nowhere else, mean that the files land side by side and that one ``except CampaignError`` catches
every kind's refusal; :func:`read_json` says alike, for every kind, that a file cannot be read or is not JSON.
This module imports none of the campaigns' modules, so any of them can import it.
"""

from __future__ import annotations

import json
from typing import Any

CAMPAIGN_DIR = "campaigns"
"""Where progress files go by default (relative to the working folder; ``campaigns/`` of the checkout)."""
MAX_SHARES = 64
"""The most shares a check, search or scan may cut its position into (``--shares``, a spec's ``shares``)."""


class CampaignError(ValueError):
    """A progress file that cannot be continued (unreadable, another game's or plan's, finished)."""


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
