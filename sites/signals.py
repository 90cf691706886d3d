"""A site's revision follows every change of what its scenarios read of it: the site itself
(``Site.save``), and here its cooling, rooms, racks, power panels and feeds, saved or deleted
(the admin, the API and the NetBox import all save row by row). The evaluation cache's key
names the revision (tco/services/evaluation_cache.py), so a changed feed or price is evaluated
again instead of served from the cache."""
from __future__ import annotations

from django.db.models import Subquery
from django.db.models.signals import post_delete
from django.db.models.signals import post_save
from django.dispatch import receiver

from sites.models import PowerFeed
from sites.models import PowerPanel
from sites.models import RackPosition
from sites.models import Room
from sites.models import Site
from sites.models import SiteCooling


@receiver(post_save, sender=SiteCooling, dispatch_uid="sites.bump_revision_cooling_saved")
@receiver(post_delete, sender=SiteCooling, dispatch_uid="sites.bump_revision_cooling_deleted")
@receiver(post_save, sender=Room, dispatch_uid="sites.bump_revision_room_saved")
@receiver(post_delete, sender=Room, dispatch_uid="sites.bump_revision_room_deleted")
@receiver(post_save, sender=RackPosition, dispatch_uid="sites.bump_revision_rack_saved")
@receiver(post_delete, sender=RackPosition, dispatch_uid="sites.bump_revision_rack_deleted")
@receiver(post_save, sender=PowerPanel, dispatch_uid="sites.bump_revision_panel_saved")
@receiver(post_delete, sender=PowerPanel, dispatch_uid="sites.bump_revision_panel_deleted")
def bump_site_revision(sender, instance, **kwargs) -> None:
    """A row of a site changed: the site's revision moves (a site being deleted with it, none)."""
    Site.revise(pk=instance.site_id)


@receiver(post_save, sender=PowerFeed, dispatch_uid="sites.bump_revision_feed_saved")
@receiver(post_delete, sender=PowerFeed, dispatch_uid="sites.bump_revision_feed_deleted")
def bump_feed_site_revision(sender, instance, **kwargs) -> None:
    """A feed changed: the revision of its panel's site moves."""
    panel_site = PowerPanel.objects.filter(pk=instance.panel_id).values("site_id")
    Site.revise(pk=Subquery(panel_site))
