import catalog.validators
from django.db import migrations, models


class Migration(migrations.Migration):
    """A rental curve's prices in the currency they were quoted in (the rows so far are in USD)."""

    dependencies = [
        ('catalog', '0022_token_api_training_price'),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='rentalcurveprice',
            name='catalog_rental_curve_price_positive',
        ),
        migrations.RenameField(
            model_name='rentalcurveprice',
            old_name='usd_per_accelerator_hour',
            new_name='price_per_accelerator_hour',
        ),
        migrations.AlterField(
            model_name='rentalcurveprice',
            name='price_per_accelerator_hour',
            field=models.DecimalField(decimal_places=4, max_digits=10, validators=[catalog.validators.validate_positive], verbose_name='price (per accelerator-hour, in its currency)'),
        ),
        migrations.AddField(
            model_name='rentalcurveprice',
            name='currency',
            field=models.CharField(choices=[('USD', 'US dollar'), ('EUR', 'Euro'), ('GBP', 'Pound sterling'), ('JPY', 'Japanese yen'), ('CNY', 'Chinese yuan'), ('KRW', 'South Korean won'), ('INR', 'Indian rupee'), ('CAD', 'Canadian dollar'), ('AUD', 'Australian dollar'), ('CHF', 'Swiss franc'), ('SEK', 'Swedish krona'), ('SGD', 'Singapore dollar')], default='USD', max_length=3),
        ),
        migrations.AddConstraint(
            model_name='rentalcurveprice',
            constraint=models.CheckConstraint(condition=models.Q(('price_per_accelerator_hour__gt', 0)), name='catalog_rental_curve_price_positive'),
        ),
        migrations.AddConstraint(
            model_name='rentalcurveprice',
            constraint=models.CheckConstraint(condition=models.Q(('currency__in', ['USD', 'EUR', 'GBP', 'JPY', 'CNY', 'KRW', 'INR', 'CAD', 'AUD', 'CHF', 'SEK', 'SGD'])), name='catalog_rental_curve_currency_known'),
        ),
    ]
