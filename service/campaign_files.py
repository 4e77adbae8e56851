"""What every kind of campaign's progress file shares: the folder it goes to and the error it raises.

Why: the lower-bound campaigns (:mod:`service.bound_campaigns`), the rollout campaigns
(:mod:`service.rollouts`) and the polishes (:mod:`service.polishes`) each keep a progress file, by default in
the same folder, and each refuses a file it cannot continue.  One folder name and one exception class, defined
here and nowhere else, mean that the files land side by side and that one ``except CampaignError`` catches
every kind's refusal.  This module imports none of the campaigns' modules, so any of them can import it.
"""

from __future__ import annotations

CAMPAIGN_DIR = "campaigns"
"""Where progress files go by default (relative to the working folder; ``campaigns/`` of the checkout)."""


class CampaignError(ValueError):
    """A progress file that cannot be continued (unreadable, another game's or plan's, finished)."""
