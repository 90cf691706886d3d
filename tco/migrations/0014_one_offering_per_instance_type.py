"""One offering per (provider, instance type, region, pricing model), whatever fed its prices.

Lambda and RunPod price an instance type once for all their regions, and their feeds write it
as region 'global'; the catalog's seed data wrote the same offerings as region 'unspecified'.
Each such 'unspecified' offering becomes 'global': renamed when there is no 'global' row yet,
else merged into it (its prices and the rent options on it move over; a price the 'global' row
already holds from the same source, date and team is kept once, and whatever pointed at the
copy points at the kept one). Offerings whose hardware differs from the 'global' row's are not
the same offering and are left alone, and so are team-owned offerings (a team's own rows).
"""
from django.db import migrations

GLOBAL_PRICED_PROVIDERS = ("lambda", "runpod")
UNSPECIFIED, GLOBAL = "unspecified", "global"


def merge_into_global(apps, schema_editor):
    CloudOffering = apps.get_model("catalog", "CloudOffering")
    for duplicate in CloudOffering.objects.filter(provider__in=GLOBAL_PRICED_PROVIDERS,
                                                  region=UNSPECIFIED, team__isnull=True):
        kept = CloudOffering.objects.filter(
            provider=duplicate.provider, instance_type=duplicate.instance_type, region=GLOBAL,
            pricing_model=duplicate.pricing_model, team__isnull=True).first()
        if kept is None:
            duplicate.region = GLOBAL
            duplicate.save(update_fields=["region"])
        elif (kept.accelerator_id, kept.accelerators_per_instance) == (
                duplicate.accelerator_id, duplicate.accelerators_per_instance):
            _merge(apps, duplicate, kept)


def _merge(apps, duplicate, kept):
    PricePoint = apps.get_model("catalog", "PricePoint")
    for point in PricePoint.objects.filter(offering=duplicate):
        same = PricePoint.objects.filter(offering=kept, team_id=point.team_id, as_of=point.as_of,
                                         source_id=point.source_id, amount=point.amount).first()
        if same is None:
            point.offering = kept
            point.save(update_fields=["offering"])
        else:
            _repoint(apps, point, same)
            point.delete()
    apps.get_model("tco", "RentOption").objects.filter(offering=duplicate).update(offering=kept)
    duplicate.delete()


def _repoint(apps, point, same):
    """Whatever pointed at ``point`` points at ``same``, its identical copy."""
    PriceAlert = apps.get_model("tco", "PriceAlert")
    PriceAlert.objects.filter(old_price_point=point).update(old_price_point=same)
    PriceAlert.objects.filter(new_price_point=point).update(new_price_point=same)
    for app, model, field in (("tco", "ScenarioSnapshot", "price_points"),
                              ("catalog", "PriceRefreshJob", "written_prices")):
        through, owner = getattr(apps.get_model(app, model), field).through, model.lower()
        for row in through.objects.filter(pricepoint=point):
            if through.objects.filter(**{owner: getattr(row, f"{owner}_id"), "pricepoint": same}).exists():
                row.delete()
            else:
                row.pricepoint = same
                row.save()


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0006_team_owned_sources_and_offerings"),
        ("tco", "0013_rent_option_cheapest_region"),
    ]

    operations = [migrations.RunPython(merge_into_global, migrations.RunPython.noop, elidable=True)]
